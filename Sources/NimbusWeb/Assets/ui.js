// Small helpers shared by the pages: elements, MPD quoting, durations.
export const $ = (id) => document.getElementById(id);

/// An element with attributes (`text` sets its text, `on*` adds listeners) and children.
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') element.textContent = value;
    else if (key.startsWith('on')) element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, value === true ? '' : value);
  }
  element.append(...children.filter((child) => child !== null && child !== undefined));
  return element;
}

/// An argument of an MPD command line.
export const quote = (text) => '"' + String(text).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';

export function clock(seconds) {
  const whole = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = String(whole % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

export function bytes(count) {
  let value = Number(count || 0);
  for (const unit of ['B', 'KiB', 'MiB', 'GiB']) {
    if (value < 1024 || unit === 'GiB') return unit === 'B' ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${unit}`;
    value /= 1024;
  }
  return `${value} GiB`;
}

/// A song's name as people read it.
export const songName = (song) => song.Title || song.Name || (song.file || '').split('/').pop();

/// The library's update time: part of every cover's address, so the browser may keep a
/// cover for long and still sees a new one after an update.
let libraryVersion = '';
export function setLibraryVersion(version) { libraryVersion = String(version || ''); }

/// The address of a cover the daemon scales to `size` pixels: of a song or folder (`uri`) or
/// of an album (`album`, `artist`).
export function coverURL(what, size) {
  const query = new URLSearchParams({ ...what, size: String(size), v: libraryVersion });
  return `/cover?${query.toString().replace(/\+/g, '%20')}`;
}

/// Asks before something that cannot be taken back (a playlist deleted, a show unsubscribed):
/// a dialog naming the action; true when the person confirms.
export function confirmAction(question, action, cancel = 'Cancel') {
  return new Promise((resolve) => {
    const dialog = h('dialog', { class: 'confirm', 'aria-label': question },
      h('p', { text: question }),
      h('div', { class: 'options' },
        h('button', { value: 'no', text: cancel, onclick: () => dialog.close('no') }),
        h('button', { value: 'yes', class: 'danger', text: action, onclick: () => dialog.close('yes') })));
    dialog.addEventListener('close', () => { dialog.remove(); resolve(dialog.returnValue === 'yes'); });
    document.body.append(dialog);
    dialog.showModal();
  });
}

let snackTimer = null;
/// A short note at the bottom of the screen; with `undo`, a button that takes the action back
/// (a cleared queue, a removed song), for eight seconds.
export function notify(text, undo = null, undoLabel = 'Undo') {
  const bar = $('snackbar');
  clearTimeout(snackTimer);
  bar.replaceChildren(h('span', { text }),
    undo ? h('button', { text: undoLabel, onclick: async () => { bar.hidden = true; await undo(); } }) : null);
  bar.hidden = false;
  snackTimer = setTimeout(() => { bar.hidden = true; }, undo ? 8000 : 4000);
}

/// An error as a person reads it: the daemon's ACKs are already sentences, but what a server
/// answered is often a bare status ("PROPFIND /: HTTP 501"); those are said in words.
export function humanError(message, words) {
  const text = String(message || '');
  const status = text.match(/HTTP (\d{3})/);
  if (status) {
    const code = Number(status[1]);
    const known = { 401: 'refused', 403: 'refused', 404: 'notFound', 405: 'notWebDAV', 501: 'notWebDAV', 500: 'serverFailed', 502: 'serverFailed', 503: 'serverFailed' };
    if (known[code]) return words(`error_${known[code]}`, { code });
  }
  if (/could(n't| not) (connect|resolve)|unreachable|refused the connection|Connection refused/i.test(text)) return words('error_unreachable');
  if (/timed? ?out/i.test(text)) return words('error_timeout');
  return text;
}
