// A queued photo sent in parts (PUT …/uploads/{key} with Content-Range), so that an upload cut
// off by bad Wi-Fi goes on from the bytes the server holds instead of starting again; and the
// lock that keeps two tabs of one phone from sending the same photo at once.

// Bytes in one part: what a dropped connection can cost at most.
export const PART_SIZE = 512 * 1024;

// Returned by `holding` when another tab sends the photo.
export const BUSY = Symbol('busy');

const enc = encodeURIComponent;

function taskQuery(item) {
  return item.missionId ? `?mission=${enc(item.missionId)}&task=${enc(item.taskId)}${item.choose ? '&choose=true' : ''}` : '';
}

// Sends what the server does not hold yet of `item.blob`. `transport({ method, url, headers,
// body, sent, total, status })` makes one request and answers { status, body, header(name) }
// (status 0: no answer); `status`, on the last part, is where to ask whether the photo is made
// while its answer is slow to come. `save(offset)` keeps the bytes acknowledged. Answers as
// UploadQueue.send does.
export async function sendParts(item, { transport, save, permanent }) {
  const total = item.blob.size;
  const url = `/api/v1/groups/${enc(item.groupId)}/uploads/${enc(item.id)}`;
  let offset = item.offset || 0;
  const failure = (r) => {
    const busy = r.status === 409 && r.body && r.body.code === 'upload-busy';
    return { ok: false, status: r.status, problem: r.body, permanent: !busy && permanent.has(r.status), retryAfter: Number(r.header('Retry-After')) || 0 };
  };
  if (offset > 0 || item.attempts > 0) {
    // An earlier attempt stopped somewhere: the server says where, or that the photo is made
    // (the answer to its last part was lost on the way).
    const r = await transport({ method: 'GET', url });
    if (r.status === 200 && r.body && r.body.photo) return { ok: true, photo: r.body.photo, answer: r.body };
    if (r.status === 200 && r.body && typeof r.body.offset === 'number') offset = r.body.offset;
    else if (r.status === 404 && r.body && r.body.code === 'upload-not-found') offset = 0;
    else return failure(r);
  }
  for (let turns = 0; turns < 4 * Math.ceil(total / PART_SIZE) + 8; turns += 1) {
    const end = Math.min(offset + PART_SIZE, total);
    const range = offset < total ? `bytes ${offset}-${end - 1}/${total}` : `bytes */${total}`;
    const r = await transport({
      method: 'PUT', url: url + taskQuery(item), headers: { 'Content-Range': range, 'Content-Type': 'application/octet-stream' },
      body: offset < total ? item.blob.slice(offset, end) : '', sent: offset, total, status: end === total ? url : null,
    });
    if (r.status === 201 && r.body) return { ok: true, photo: r.body.photo, answer: r.body };
    if (r.status === 200 && r.body && typeof r.body.offset === 'number') {
      offset = r.body.offset;
      await save(offset);
      continue;
    }
    if (r.status === 409 && r.body && r.body.code === 'upload-offset-mismatch') {
      offset = Number(r.header('Upload-Offset')) || 0;
      continue;
    }
    return failure(r);
  }
  return { ok: false, status: 0, permanent: false };
}

// ---------------------------------------------------------------- one tab at a time

// Runs `fn` holding the photo's lock, or answers BUSY when another tab of the phone holds it.
// Web Locks where the browser has them (held until `fn` ends, or the tab goes); else a lease
// kept on the queued item in IndexedDB (`lease(id, take)`), renewed while `fn` runs, which a
// closed tab's stops renewing.
export async function holding(item, fn, lease) {
  if (navigator.locks && navigator.locks.request) {
    return navigator.locks.request('groupie-upload-' + item.id, { ifAvailable: true }, (lock) => (lock ? fn() : BUSY));
  }
  if (!(await lease(item, true))) return BUSY;
  const renew = setInterval(() => { lease(item, true).catch(() => {}); }, LEASE_MS / 3);
  try {
    return await fn();
  } finally {
    clearInterval(renew);
    await lease(item, false).catch(() => {});
  }
}

export const LEASE_MS = 15000;
export const TAB = Math.random().toString(36).slice(2) + Date.now().toString(36);

// The lease as stored: taken when no other tab's is still running (`record` is the stored
// item, changed in place), or given back. True when this tab holds it now.
export function updateLease(record, take, now = Date.now()) {
  const held = record.lease && record.lease.tab !== TAB && record.lease.until > now;
  if (take) {
    if (held) return false;
    record.lease = { tab: TAB, until: now + LEASE_MS };
    return true;
  }
  if (!held) record.lease = null;
  return false;
}
