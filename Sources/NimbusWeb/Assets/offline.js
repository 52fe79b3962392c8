// Offline: the cache's room against cache_size; every pin with its state, songs done of
// total, bytes, speed and time left; its songs with their own progress (opened on demand);
// pause, resume, retry, remove. Progress arrives through the `offline` idle event.
import { $, h, quote, bytes, songName, confirmAction } from './ui.js';
import { t } from './strings.js';

export class Offline {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    /// Pins whose songs are shown.
    this.open = new Set();
  }

  async refresh() {
    let pins;
    try {
      pins = await this.mpd.records('listpins', 'pin');
    } catch {
      return;
    }
    const rows = [];
    for (const pin of pins) rows.push(this.row(pin, this.open.has(pin.pin) ? await this.songs(pin.pin) : null));
    $('pin-list').replaceChildren(...(rows.length ? rows : [h('li', { text: t('noPins') })]));
    await this.showSpace();
  }

  async showSpace() {
    let space;
    try {
      space = await this.mpd.record('cachestatus');
    } catch {
      return;
    }
    const budget = Number(space.cache_size || 0), used = Number(space.cache_used || 0), pinned = Number(space.pinned || 0);
    const parts = [t('spaceUsed', { used: bytes(used), size: bytes(budget) }), t('spacePinned', { pinned: bytes(pinned) })];
    if (space.disk_free) parts.push(t('diskFree', { free: bytes(space.disk_free) }));
    $('cache-space').replaceChildren(
      h('progress', { max: budget || 1, value: Math.min(used, budget), 'aria-label': t('cacheSpace') }),
      h('p', { class: 'muted', text: parts.join(' · ') }));
  }

  /// A pin's songs, each with its progress.
  async songs(name) {
    try {
      return await this.mpd.records(`pinstatus ${quote(name)}`, 'file');
    } catch {
      return [];
    }
  }

  row(pin, songs) {
    const total = Number(pin.bytes || 0), done = Number(pin.done || 0);
    const name = pin.pin, playlist = pin.type === 'playlist';
    const details = [`${pin.completed}/${pin.songs} ${t('songs')}`, `${bytes(done)} / ${bytes(total)}`];
    if (pin.speed) details.push(`${bytes(pin.speed)}/s`);
    if (pin.eta) details.push(t('timeLeft', { minutes: Math.ceil(Number(pin.eta) / 60) }));
    const paused = pin.state === 'paused', shown = songs !== null;
    return h('li', { class: 'pin' },
      h('div', { class: 'row-main' },
        h('strong', { text: name }), ` — ${stateName(pin.state)}`,
        h('progress', { max: total || 1, value: done, 'aria-label': name }),
        h('div', { class: 'muted', text: details.join(' · ') + (pin.message ? ` · ${pin.message}` : '') }),
        shown ? h('ol', { class: 'pin-songs' }, ...songs.map((song) => this.songRow(song))) : null),
      h('div', { class: 'pin-actions' },
        h('button', { text: shown ? t('hideSongs') : t('showSongs'), 'aria-expanded': String(shown), 'aria-label': `${t('showSongs')} ${name}`,
          onclick: () => { if (shown) this.open.delete(name); else this.open.add(name); this.refresh(); } }),
        pin.state === 'completed' ? null
          : h('button', { text: t(paused ? 'resume' : 'pause_'), 'aria-label': `${t(paused ? 'resume' : 'pause_')} ${name}`,
            onclick: () => this.run(`${paused ? 'resumepin' : 'pausepin'} ${quote(name)}`) }),
        pin.state === 'failed' ? h('button', { text: t('retry'), 'aria-label': `${t('retry')} ${name}`, onclick: () => this.run(`retrypin ${quote(name)}`) }) : null,
        pin.configured ? null : h('button', { text: t('unpin'), 'aria-label': `${t('unpin')} ${name}`,
          onclick: async () => {
            if (await confirmAction(t('confirmUnpin', { name }), t('unpin'), t('cancel'))) await this.run(`${playlist ? 'unpinplaylist' : 'unpin'} ${quote(name)}`);
          } })),
    );
  }

  songRow(song) {
    const total = Number(song.bytes || 0), done = Number(song.done || 0);
    const details = [stateName(song.state), `${bytes(done)} / ${bytes(total)}`];
    if (song.speed) details.push(`${bytes(song.speed)}/s`);
    if (song.message) details.push(song.message);
    return h('li', {},
      h('span', { text: songName(song) }),
      h('progress', { max: total || 1, value: done, 'aria-label': songName(song) }),
      h('span', { class: 'muted', text: details.join(' · ') }));
  }
}

/// A download state in the page's language (the daemon's word when the table lacks it).
function stateName(state) {
  const key = 'state_' + String(state).replace(/[ -]/g, '_');
  const name = t(key);
  return name === key ? state : name;
}
