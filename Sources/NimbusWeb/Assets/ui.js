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
