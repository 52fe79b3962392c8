// Offline: every pin with its state, songs done of total, bytes, speed and time left;
// pause, resume, retry, remove. Progress arrives through the `offline` idle event.
import { $, h, quote, bytes } from './ui.js';
import { t } from './strings.js';

export class Offline {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
  }

  async refresh() {
    let pins;
    try {
      pins = await this.mpd.records('listpins', 'pin');
    } catch {
      return;
    }
    $('pin-list').replaceChildren(...(pins.length ? pins.map((pin) => this.row(pin)) : [h('li', { text: t('noPins') })]));
  }

  row(pin) {
    const total = Number(pin.bytes || 0), done = Number(pin.done || 0);
    const name = pin.pin, target = pin.type === 'playlist' ? 'playlist ' : '';
    const details = [`${pin.completed}/${pin.songs} ${t('songs')}`, `${bytes(done)} / ${bytes(total)}`];
    if (pin.speed) details.push(`${bytes(pin.speed)}/s`);
    if (pin.eta) details.push(`${Math.ceil(Number(pin.eta) / 60)} min`);
    const paused = pin.state === 'paused';
    return h('li', { class: 'pin' },
      h('div', { class: 'row-main' },
        h('strong', { text: name }), ` — ${pin.state}`,
        h('progress', { max: total || 1, value: done, 'aria-label': name }),
        h('div', { class: 'muted', text: details.join(' · ') + (pin.message ? ` · ${pin.message}` : '') })),
      pin.state === 'completed' ? null
        : h('button', { text: t(paused ? 'resume' : 'pause_'), onclick: () => this.run(`${paused ? 'resumepin' : 'pausepin'} ${quote(name)}`) }),
      pin.state === 'failed' ? h('button', { text: t('retry'), onclick: () => this.run(`retrypin ${quote(name)}`) }) : null,
      pin.configured ? null : h('button', { text: t('unpin'), onclick: () => this.run(`${target ? 'unpinplaylist' : 'unpin'} ${quote(name)}`) }),
    );
  }
}
