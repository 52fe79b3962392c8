// Settings: ReplayGain, crossfade and MixRamp, the library update with its progress, the
// loudness analysis with its progress, the daemon's statistics and protocol version, and the
// phones' users (phones.js).
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
    $('analyze').addEventListener('click', () => run('analyze'));
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
    await this.refreshAnalysis();
    await this.phones.refresh();
  }

  /// The analysis line: hidden when the box does not measure (`loudness_analysis "no"`).
  async refreshAnalysis() {
    const status = await this.mpd.record('analysisstatus').catch(() => null);
    $('analysis-line').hidden = !status;
    if (!status) return;
    const songs = Number(status.songs || 0), measured = Number(status.measured || 0), pending = Number(status.pending || 0);
    $('analysis-progress').value = songs > 0 ? Math.min(1, measured / songs) : 1;
    $('analysis-state').textContent = [t('analysisProgress', { measured, songs }),
      pending > 0 ? t('analysisWaiting', { pending }) : '', status.state === 'paused' ? t('analysisPaused') : '']
      .filter(Boolean).join(', ');
    $('analyze').disabled = status.state === 'running';
  }
}
