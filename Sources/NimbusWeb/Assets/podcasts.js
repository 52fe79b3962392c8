// Podcasts: subscribe by a feed's address, the shows with their episode and new counts (and
// why a refresh failed), how many of the newest to keep offline, refresh, unsubscribe; a show opens as its folder in the Library,
// where episodes show where they resume (▶) and which were played (✓).
import { $, h, quote, coverURL, confirmAction } from './ui.js';
import { t } from './strings.js';

export class Podcasts {
  constructor(mpd, run, openFolder) {
    this.mpd = mpd;
    this.run = run;
    this.openFolder = openFolder;
    $('podcast-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const url = $('podcast-url').value.trim();
      if (!url) return;
      $('podcast-state').textContent = t('subscribing');
      const answer = await run(`podcastsubscribe ${quote(url)}`);
      $('podcast-state').textContent = '';
      if (answer !== null) { $('podcast-url').value = ''; await this.refresh(); }
    });
    $('podcast-refresh').addEventListener('click', async () => {
      $('podcast-state').textContent = t('refreshing');
      await run('podcastrefresh');
      $('podcast-state').textContent = '';
      await this.refresh();
    });
  }

  async refresh() {
    let shows = [];
    try {
      shows = await this.mpd.records('listpodcasts', 'podcast');
    } catch {
      shows = [];
    }
    $('podcast-list').replaceChildren(...(shows.length ? shows.map((show) => this.row(show)) : [h('li', { text: t('noPodcasts') })]));
  }

  /// "Keep offline": how many of the newest episodes stay on the box (`podcastkeep`).
  keepPicker(name, keep) {
    const select = h('select', { class: 'keep', 'aria-label': `${t('keepOffline')} ${name}` },
      ...[0, 1, 3, 5, 10].map((count) => h('option', { value: String(count), text: count ? t('keepNewest', { count }) : t('keepNone') })));
    select.value = String(keep);
    select.addEventListener('change', async () => { await this.run(`podcastkeep ${quote(name)} ${select.value}`); await this.refresh(); });
    return select;
  }

  row(show) {
    const name = show.podcast;
    const details = [t('episodes', { count: show.episodes || 0 })];
    if (Number(show.new)) details.push(t('newEpisodes', { count: show.new }));
    if (show.error) details.push(`${t('refreshFailed')}: ${show.error}`);
    return h('li', { class: 'podcast' },
      h('img', { class: 'row-cover', alt: '', loading: 'lazy', src: coverURL({ uri: `podcasts/${name}` }, Math.round(48 * (window.devicePixelRatio || 1))),
        onload: (event) => { event.target.hidden = event.target.naturalWidth <= 1; } }),
      h('button', { class: 'row-main', 'aria-label': `${t('open')} ${name}`, onclick: () => this.openFolder(`podcasts/${name}`) },
        h('strong', { text: name }), h('div', { class: 'muted', text: details.join(' · ') })),
      this.keepPicker(name, Number(show.keep || 0)),
      h('button', { class: 'row-action', text: '↻', 'aria-label': `${t('refresh')} ${name}`,
        onclick: async () => { await this.run(`podcastrefresh ${quote(name)}`); await this.refresh(); } }),
      h('button', { class: 'row-action', text: '×', 'aria-label': `${t('unsubscribe')} ${name}`,
        onclick: async () => {
          if (!await confirmAction(t('confirmUnsubscribe', { name }), t('unsubscribe'), t('cancel'))) return;
          await this.run(`podcastunsubscribe ${quote(name)}`);
          await this.refresh();
        } }),
    );
  }
}
