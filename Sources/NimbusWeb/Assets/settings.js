// Settings: ReplayGain, crossfade and MixRamp, the library update with its progress, the
// daemon's statistics and protocol version, and the phones' users (phones.js).
import { $, h, clock } from './ui.js';
import { t } from './strings.js';
import { Phones } from './phones.js';

export class Settings {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    $('replaygain').addEventListener('change', (event) => run(`replay_gain_mode ${event.target.value}`));
    $('crossfade').addEventListener('change', (event) => run(`crossfade ${Math.max(0, Math.round(Number(event.target.value) || 0))}`));
    $('mixrampdb').addEventListener('change', (event) => run(`mixrampdb ${Number(event.target.value) || 0}`));
    $('update').addEventListener('click', () => run('update'));
    this.phones = new Phones(mpd, run);
  }

  async refresh(status) {
    const gain = await this.mpd.record('replay_gain_status');
    $('replaygain').value = gain.replay_gain_mode || 'off';
    $('crossfade').value = status.xfade || 0;
    $('mixrampdb').value = status.mixrampdb || 0;
    $('update-state').textContent = status.updating_db ? t('updating') : '';
    $('update').disabled = Boolean(status.updating_db);
    const stats = await this.mpd.record('stats');
    if (this.version === undefined) this.version = await fetch('/about.json').then((response) => response.json()).then((about) => about.version).catch(() => '');
    const updated = Number(stats.db_update || 0);
    $('stats').replaceChildren(
      ...[['songCount', stats.songs], ['albums', stats.albums], ['artists', stats.artists], ['playtime', clock(stats.db_playtime)],
        ['dbUpdated', updated ? new Date(updated * 1000).toLocaleString() : '—'], ['uptime', clock(stats.uptime)],
        ['version', this.version ? `Nimbus ${this.version}` : ''], ['protocol', this.mpd.version]]
        .map(([key, value]) => h('div', {}, h('dt', { text: t(key) }), h('dd', { text: value ?? '' }))));
    await this.phones.refresh();
  }
}
