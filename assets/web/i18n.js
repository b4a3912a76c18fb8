// Interface texts. English is here (and is the fallback for any missing key); the other
// languages are in lang/<code>.js and loaded only when chosen. Mission texts come from the
// venue, in the language asked for. To add a language: copy lang/sv.js to lang/<code>.js,
// translate the texts (with every plural form Intl.PluralRules names for it), add the code to
// LANGS (and to RTL when it is written right to left), and the file to sw.js's SHELL_FILES.

export const LANGS = ['en', 'sv', 'fr', 'ar', 'ja'];
// Languages written right to left: the page gets dir="rtl" and its layout mirrors.
const RTL = new Set(['ar']);
export const dirOf = (l) => (RTL.has(l) ? 'rtl' : 'ltr');

const NAMES = { en: 'English', sv: 'Svenska', fr: 'Français', ar: 'العربية', ja: '日本語', de: 'Deutsch', es: 'Español', fi: 'Suomi', no: 'Norsk', nb: 'Norsk', da: 'Dansk', it: 'Italiano', nl: 'Nederlands' };
export const langName = (l) => NAMES[l] || l;

const D = {
  en: {
    'loading': 'Loading…', 'back': 'Back', 'cancel': 'Cancel', 'close': 'Close', 'share': 'Share', 'retry': 'Try again',
    'lang.label': 'Language', 'skip': 'Skip to content', 'tab.label': 'Main',
    'start.title': 'Welcome to Groupie', 'start.hello': 'Hi {name}!',
    'start.lead': 'Do photo missions in the museum together with your group. Every photo shows up in your shared album at once.',
    'start.name': 'Your name', 'start.nameHelp': 'Your group sees this name next to your photos.','start.nameCut': 'A name can have at most {n} letters: the rest was left out.', 
    'start.needName': 'Please type your name first.',
    'start.create': 'Start a new group', 'start.join': 'Join a group', 'start.missionsHere': 'Missions here',
    'join.title': 'Join a group', 'join.titleNamed': 'Join “{group}”',
    'join.button': 'Join the group', 'join.welcome': 'You are in {group}. Have fun!',
    'join.leaves': 'You will leave your current group, {group}.',
    'join.unknownTitle': 'Unknown group code', 'join.unknown': 'No group has the code {code}. Check the code with the person who made the group.',
    'join.closedTitle': 'This group is closed', 'join.backToGroup': 'Back to {group}', 'join.typeCode': 'Type a code',
    'join.scanLead': 'Scan the QR code on your friend’s phone, or type the code shown under it.',
    'join.typeLead': 'Type the code shown under the QR code on your friend’s phone.',
    'join.scan': 'Scan the QR code', 'join.camera': 'Camera view for scanning', 'join.scanning': 'Point the camera at the QR code…',
    'join.found': 'Found {code}, joining…', 'join.noCamera': 'The camera is not available. Type the code instead.',
    'join.codeLabel': 'Group code', 'join.codeHelp': '6 letters and digits, for example K7M2QX.', 'join.needCode': 'Please type the group code.',
    'code.aria': 'Group code: {code}',
    'create.title': 'Start a new group', 'create.where': 'Where are you?', 'create.name': 'Group name (optional)',
    'create.namePlaceholder': 'e.g. The Sharks', 'create.button': 'Create the group', 'create.noVenues': 'There are no missions here yet. Ask the museum staff.',
    'invite.title': 'Invite your group', 'invite.lead': 'Let the others scan this code with their phone’s camera.',
    'invite.closed': 'This group can no longer be joined.',
    'group.closedByStaff': "The museum's staff closed this group ({reason}). Your photos stay in the album.",
    'invite.qrAlt': 'QR code to join the group with the code {code}', 'invite.qrFailed': 'The QR code could not be loaded. Use the code below.',
    'invite.codeLabel': 'Or type the code', 'invite.link': 'Link to the group', 'invite.copy': 'Copy the link',
    'invite.copied': 'Link copied.', 'invite.copyHand': 'Select the link and copy it.', 'invite.go': 'Go to the missions',
    'invite.shareText': 'Join my group at {venue}!',
    'tab.missions': 'Missions', 'tab.album': 'Album', 'tab.group': 'Group',
    'live.off': '', 'live.connecting': 'Connecting…', 'live.live': 'Live', 'live.reconnecting': 'Reconnecting…', 'live.offline': 'Offline', 'live.weak': 'Weak Wi-Fi', 'live.gone': 'Not connected',
    'toast.more.one': '(and {n} more)', 'toast.more.other': '(and {n} more)',
    'notice.label': 'Messages from the staff', 'notice.from': 'From the staff:', 'notice.close': 'Close message',
    'live.photoBy': '{name} added a photo: {task}', 'live.chose': '{name} chose another photo for: {task}', 'live.joined': '{name} joined the group.',
    'missions.summary.one': '{done} of {n} mission complete', 'missions.summary.other': '{done} of {n} missions complete',
    'mission.progress.one': '{done} of {n} photo', 'mission.progress.other': '{done} of {n} photos', 'mission.tasks.one': '{done} of {n} task', 'mission.tasks.other': '{done} of {n} tasks', 'mission.complete': 'Complete',
    'mission.locked': 'Unlocks after: {missions}', 'mission.all': 'All missions', 'mission.where': 'Where:',
    'mission.seeCollage': 'Mission complete! See your collage', 'mission.seeSticker': 'Mission complete! See your photo with its sticker', 'mission.pending.one': '{n} photo uploading', 'mission.pending.other': '{n} photos uploading',
    'map.show': 'Map', 'map.alt': 'Floor plan of {venue}', 'map.pin': '{mission} ({state})', 'map.done': 'complete', 'map.open': 'open', 'map.locked': 'locked',
    'map.legend': 'Filled pins with a tick: missions your group has completed. Tap a pin to open its mission.', 'map.how': 'How to find it:',
    'task.n': 'Task {n}', 'task.done': 'done', 'task.open': 'open', 'task.by': 'Photo by {name}', 'task.hint': 'Show a hint', 'task.hideHint': 'Hide the hint',
    'task.claim': "I'm on it", 'task.release': 'Give it back', 'task.isOn': '{name} is on it', 'task.youAreOn': "You're on it",
    'task.take': 'Take a photo', 'task.another': 'Take another photo',
    'alt.photo': '{task} – {name}',
    'photo.title': 'Your photo', 'photo.replace': 'Show this one for the task instead of the photo by {name}', 'photo.kept': 'Here is the photo you took before the page closed. Use it, or take it again.', 'photo.use': 'Use this photo', 'photo.retake': 'Take it again',
    'photo.previewAlt': 'Preview of your photo for: {task}', 'photo.noPreview': 'This browser cannot show {name}, but the photo can still be used.', 'photo.saving': 'Saving…',
    'photo.queued': 'Uploading your photo…', 'photo.queuedOffline': 'No connection: your photo is saved and will upload by itself.',
    'photo.uploaded': 'Photo uploaded ✓', 'photo.isTask': 'Photo uploaded ✓ It is the task’s photo.',
    'photo.toAlbum': 'Your photo is in the album: the photo by {name} stays the task’s ({task}).', 'photo.useMine': 'Use mine instead', 'photo.nowTask': 'Your photo is the task’s photo now.',
    'photo.claimedBy': '{name} is on this task: if their photo arrives first, yours goes to the album.', 'live.claimed': '{name} is on: {task}', 'live.claimerWon': '{name} was on this one, so their photo is the task’s ({task}). Yours is in the album too – thank you!', 'photo.waitingForReview': 'Photo sent ✓ The museum’s staff look at it before your group sees it.',
    'album.waiting': 'Waiting for the staff’s check', 'album.waitingHelp': 'Only you see these photos until the museum’s staff share them with your group.',
    'up.summaryOnline.one': 'Uploading {n} photo', 'up.summaryOnline.other': 'Uploading {n} photos', 'up.summary.one': '{n} photo waiting to upload', 'up.summary.other': '{n} photos waiting to upload',
    'up.whenOnline': 'they will be sent when you are back online', 'up.failedCount.one': '{n} failed', 'up.failedCount.other': '{n} failed',
    'up.sending': 'Uploading… {pct}%', 'up.waiting': 'Waiting to upload', 'up.offline': 'No connection – will upload by itself',
    'up.retrying': 'Connection problem – trying again soon', 'up.failed': 'Not uploaded: {why}', 'up.progress': 'Upload progress',
    'up.retry': 'Try again', 'join.fullTitle': 'This group is full', 'done.nextOne': 'Next mission: {mission}', 'done.undone': '{mission} needs a photo again: a photo of it was removed.', 'up.pictureAlt': 'Your photo, waiting to upload', 'album.uploading': 'Your photos on their way', 'album.unavailable': 'The album cannot be loaded without a connection. It comes back with the Wi-Fi.', 'up.stalled': 'Not moving: the Wi-Fi is weak here. It keeps trying by itself.', 'up.elsewhere': 'Sent from another tab of this phone.', 'up.again': 'Try again now', 'up.remove': 'Remove',
    'done.title': 'Mission complete!', 'done.lead': 'Well done, all of you! Here is your collage.',
    'done.making': 'Your collage is being made…', 'done.collageAlt': 'Collage of the mission “{mission}”',
    'done.download': 'Download the collage',
    'done.leadSticker': 'Well done, all of you! Here is your photo with its sticker.', 'done.stickerAlt': 'Your photo with the sticker of the mission “{mission}”',
    'done.makingSticker': 'Your sticker is being put on your photo…', 'done.downloadSticker': 'Download the picture', 'done.fact': 'Did you know?', 'done.photos': 'See the mission’s photos',
    'done.next': 'Next mission', 'done.toast': 'Mission complete: {mission}!', 'done.see': 'See the collage',
    'done.shareText': 'We finished “{mission}” at {venue}!',
    'album.title': 'Album', 'album.filter': 'Show photos of', 'album.all': 'All missions', 'album.collages': 'Collages',
    'album.photos': 'Photos', 'album.empty': 'No photos yet. Open a mission and take the first one!',
    'album.more': 'Show more photos', 'album.zip': 'Download the whole album (zip)', 'album.free': 'Free photo',
    'recap.title': 'Your visit', 'recap.emptyEnded': 'No mission was finished this time. You explored together all the same – thank you for playing!', 'finale.done': 'You did it!', 'finale.timeUp': 'Time is up – well played!', 'finale.over': 'What a visit!', 'finale.keep': 'Keep your visit', 'recap.leadDone': 'You did every mission! Here is your visit as a story, to keep.', 'recap.leadClosed': 'The museum has closed your group’s visit. Here is what you made together, to keep.', 'recap.leadOver': 'Your visit is over. Here is what you made together, to keep.', 'recap.leadTimeUp': 'Time is up! Here is what you made together, to keep.', 'recap.leadSoFar': 'Your visit so far, as a story.', 'recap.empty': 'No mission is complete yet: the story starts with your first collage.', 'recap.facts': 'What you found out', 'recap.people': 'Who did what', 'recap.share.one': '{n} photo', 'recap.share.other': '{n} photos', 'recap.pdf': 'Download the page (PDF)', 'recap.png': 'Download the page (picture)', 'recap.shareFailed': 'The page could not be shared; download it instead.', 'recap.album': 'Back to the album', 'recap.open': 'See your visit’s story', 'recap.ready': 'Your visit is over: see its story!',
    'points.total.one': '{n} point', 'points.total.other': '{n} points', 'badge.first-photo': 'First photo', 'badge.all-missions': 'All missions', 'badge.different-members': 'Everyone helped',
    'viewer.choose': 'Use this one for the task', 'viewer.chosen': 'Chosen for the task', 'viewer.chooseDone': 'Chosen for the task ✓', 'viewer.delete': 'Delete', 'viewer.deleteConfirm': 'Delete this photo for everyone in the group?', 'viewer.deleted': 'Photo deleted.', 'viewer.hide': 'Hide from the group', 'viewer.hideConfirm': 'Hide this photo from the group’s album and collage? The museum’s staff keep it.', 'viewer.hidden': 'Photo hidden from the group.', 'viewer.download': 'Download', 'viewer.prev': 'Previous photo', 'viewer.next': 'Next photo',
    'group.unnamed': 'Group {code}', 'preview.group': 'Preview', 'group.code': 'Code', 'group.members': 'Members', 'group.membersOf': 'Members ({n} of {max})',
    'group.you': '(you)', 'group.creator': 'started the group', 'group.tasks.one': '{n} task', 'group.tasks.other': '{n} tasks',
    'group.showQr': 'Show the QR code', 'group.change': 'Change group', 'group.leave': 'Leave the group',
    'group.leaveConfirm': 'Leave this group? Your photos stay in its album.', 'group.gone': 'You are no longer in this group.',
    'group.you2': 'You', 'group.saveName': 'Save my name', 'group.renamed': 'Name saved.',
    'feed.title': 'What happened', 'feed.empty': 'Nothing yet: take the first photo!', 'feed.someone': 'Someone',
    'feed.joined': '{name} joined the group.', 'feed.photo': '{name} added a photo.', 'feed.photoFor': '{name} added a photo: {task}',
    'feed.claimed': '{name} is on: {task}', 'feed.completed': 'Mission complete: {mission}', 'feed.reactTo': 'React',
    'feed.reaction.heart': 'Love it', 'feed.reaction.laugh': 'Funny', 'feed.reaction.wow': 'Wow', 'feed.reaction.clap': 'Well done', 'feed.reaction.star': 'Star',
    'err.generic': 'Something went wrong. Please try again.', 'err.network': 'No connection. Check the Wi-Fi and try again.',
    'err.offlineTitle': 'No connection',
    'err.unknown-code': 'No group has this code. Check it with the person who made the group.',
    'err.invalid-code': 'That does not look like a group code. It has 6 letters and digits.',
    'err.invalid-name': 'A name can have letters, numbers and spaces, but no special hidden signs. Try again!',
    'err.group-full': 'This group is full: ask someone in it to leave to make room, or start your own group!',
    'err.group-closed': 'This group can no longer be joined. Start a new group instead.',
    'err.joining-time-over': 'The time for joining this group is over. Start a new group instead.',
    'err.too-many-attempts.one': 'Too many wrong codes. Please try again in 1 minute.', 'err.too-many-attempts.other': 'Too many wrong codes. Please try again in {n} minutes.', 'err.too-many-changes': 'That was a lot of taps! Wait a moment, then try again.',
    'err.mission-locked': 'This mission is still locked.',
    'err.unsupported-image': 'This file is not a photo the game can use (JPEG, PNG, WebP or HEIC).',
    'err.image-too-small': 'This photo is too small.', 'err.image-too-large': 'This photo is too large.',
    'err.photo-too-large': 'This photo is too large (at most 25 MB).', 'err.unreadable-image': 'This photo could not be read.',
    'err.http-404': 'Not found: the group may have ended.',
    // Questions, found-it codes and time limits (answers.js)
    'time.limit': 'You have {minutes} min once you start.', 'time.left': '{minutes} min left', 'time.up': 'Time is up for this mission.', 'time.seconds.one': '{n} second left', 'time.seconds.other': '{n} seconds left',
    'answer.right': 'Right!', 'answer.wrong': 'Not quite. Try again!', 'answer.found': 'Code found!', 'answer.wrongCode': 'That is not the code. Look again!',
    'answer.group': 'Your group’s answers', 'answer.byRight': '{name}: {answer}', 'answer.byWrong': '{name}: {answer} (not right)',
    'answer.label': 'Your answer', 'answer.send': 'Answer', 'answer.codeLabel': 'The code on the sticker', 'answer.check': 'Check the code',
    'answer.scan': 'Scan the code', 'answer.camera': 'Camera view for scanning the code', 'answer.noCamera': 'The camera is not available. Type the code instead.',
    'live.answered': '{name} tried an answer: {task}', 'live.answeredRight': '{name} got it right: {task}',
    'err.too-many-guesses.one': 'That is a lot of guesses! Think it over, then try again in 1 minute.', 'err.too-many-guesses.other': 'That is a lot of guesses! Think it over, then try again in {n} minutes.', 'err.time-up': 'The time for this mission is up.', 'err.attempts-used-up': 'Your group has used all its tries for this one. Go on with the other tasks!', 'err.task-answered-already': 'Your group has already got this one.',
  },
};

let current = 'en';

const base = (tag) => String(tag || '').toLowerCase().split('-')[0];

// The phone's one language, for its interface, its venue's mission texts and the collages it
// shows: the visitor's own choice, else the first of the browser's languages (in their order)
// that the interface speaks and the venue has (any venue, before one is known). When none is
// both, every text falls back together: to English when the venue has it, else to the first of
// the venue's languages the interface speaks. Only a venue with no language the interface
// speaks gets mission texts in another language than the interface (its default, as the server
// falls back), the interface being in English.
export function pickLang(prefs, venueLangs, chosen) {
  const venue = venueLangs && venueLangs.length ? venueLangs.map(base) : null;
  const both = (l) => LANGS.includes(l) && (!venue || venue.includes(l));
  for (const p of [chosen, ...(prefs || [])]) if (p && both(base(p))) return base(p);
  if (!venue || venue.includes('en')) return 'en';
  return venue.find((l) => LANGS.includes(l)) || 'en';
}

// Loads the language's texts (once) and makes it current; English when it cannot be loaded.
export async function setLang(l) {
  if (!D[l] && LANGS.includes(l) && l !== 'en') {
    try { D[l] = (await import(`./lang/${l}.js`)).default; } catch (e) { /* keep English */ }
  }
  current = D[l] ? l : 'en';
  // The page says its language (for screen readers, hyphenation, fonts) and its direction.
  document.documentElement.lang = current;
  document.documentElement.dir = dirOf(current);
}

export function t(key, vars) {
  const dict = D[current] || D.en;
  let s = dict[key];
  if (s === undefined) s = D.en[key];
  if (s === undefined) return key;
  // Names and other texts from people are isolated for bidi (FSI ... PDI), so that a right-to-left
  // name cannot reorder the sentence around it.
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] === undefined ? m : typeof vars[k] === 'string' ? '\u2068' + vars[k] + '\u2069' : vars[k]));
  return s;
}

// A text that counts: the plural form the language's rules name for n (English and Swedish have
// one and other, Arabic zero, one, two, few, many and other, Japanese only other), else other.
export function tn(key, n, vars) {
  const dict = D[current] || D.en;
  const form = new Intl.PluralRules(current).select(n);
  return t(dict[key + '.' + form] !== undefined ? key + '.' + form : key + '.other', { n, ...vars });
}
