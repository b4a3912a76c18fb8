// Reading a QR code with the camera where the browser can (BarcodeDetector): joining a group by
// its code, and a found-it code on a sticker. One scan at a time.

let scan = null;

// Loaded by ui.js `scanner()`, which also says whether the browser can scan (`canScan`).

export function stopScan() {
  if (!scan) return;
  scan.stop = true;
  if (scan.stream) scan.stream.getTracks().forEach((tr) => tr.stop());
  scan = null;
}

// Shows the back camera in `video` and calls `onText` with each QR code's text until it
// returns true. Throws when there is no camera or no QR reader.
export async function startScan(video, onText) {
  const formats = await window.BarcodeDetector.getSupportedFormats();
  if (!formats.includes('qr_code')) throw new Error('no qr');
  const detector = new window.BarcodeDetector({ formats: ['qr_code'] });
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
  stopScan();
  const mine = { stream, stop: false };
  scan = mine;
  video.srcObject = stream; video.hidden = false; await video.play();
  const tick = async () => {
    if (scan !== mine || mine.stop) return;
    try {
      const codes = await detector.detect(video);
      if (codes.some((c) => onText(c.rawValue))) { stopScan(); video.hidden = true; return; }
    } catch (e) { /* frame not ready */ }
    setTimeout(tick, 250);
  };
  tick();
}
