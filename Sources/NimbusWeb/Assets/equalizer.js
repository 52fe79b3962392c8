// Equalizer: per output, the preset it uses (or none), its bands drawn as a curve and edited
// by dragging a point or typing, A/B bypass, balance and crossfeed, and presets imported from
// pasted AutoEq / Equalizer APO text — all through the daemon's eq* commands, so what the page
// shows is what every other client sees. The curve is the RBJ cookbook response the daemon
// runs, computed here at the output's usual 48 kHz.
import { $, h, quote, confirmAction } from './ui.js';
import { t } from './strings.js';

const SVG = 'http://www.w3.org/2000/svg';
const RATE = 48000;
const TYPES = ['PK', 'LSC', 'HSC', 'LP', 'HP', 'NO'];
const WIDTH = 600, HEIGHT = 200, LOW = 20, HIGH = 20000, RANGE = 15;

/// |H| in dB of one band at `f` (the daemon's Biquad, same formulas).
export function bandDB(band, f) {
  const a = 10 ** (band.gain / 40), w0 = 2 * Math.PI * Math.min(band.fc, RATE * 0.49) / RATE;
  const cs = Math.cos(w0), alpha = Math.sin(w0) / (2 * Math.max(band.q, 0.01)), r = 2 * Math.sqrt(a) * alpha;
  let b, d;
  switch (band.type) {
    case 'PK': b = [1 + alpha * a, -2 * cs, 1 - alpha * a]; d = [1 + alpha / a, -2 * cs, 1 - alpha / a]; break;
    case 'LSC': b = [a * ((a + 1) - (a - 1) * cs + r), 2 * a * ((a - 1) - (a + 1) * cs), a * ((a + 1) - (a - 1) * cs - r)];
      d = [(a + 1) + (a - 1) * cs + r, -2 * ((a - 1) + (a + 1) * cs), (a + 1) + (a - 1) * cs - r]; break;
    case 'HSC': b = [a * ((a + 1) + (a - 1) * cs + r), -2 * a * ((a - 1) + (a + 1) * cs), a * ((a + 1) + (a - 1) * cs - r)];
      d = [(a + 1) - (a - 1) * cs + r, 2 * ((a - 1) - (a + 1) * cs), (a + 1) - (a - 1) * cs - r]; break;
    case 'LP': b = [(1 - cs) / 2, 1 - cs, (1 - cs) / 2]; d = [1 + alpha, -2 * cs, 1 - alpha]; break;
    case 'HP': b = [(1 + cs) / 2, -(1 + cs), (1 + cs) / 2]; d = [1 + alpha, -2 * cs, 1 - alpha]; break;
    default: b = [1, -2 * cs, 1]; d = [1 + alpha, -2 * cs, 1 - alpha];
  }
  const w = 2 * Math.PI * f / RATE;
  const part = (c) => [c[0] + c[1] * Math.cos(w) + c[2] * Math.cos(2 * w), -(c[1] * Math.sin(w) + c[2] * Math.sin(2 * w))];
  const [nr, ni] = part(b), [dr, di] = part(d);
  return 10 * Math.log10(Math.max(nr * nr + ni * ni, 1e-30) / Math.max(dr * dr + di * di, 1e-30));
}

/// Reads the daemon's `line:` export back into { preamp, bands }.
export function parsePreset(lines) {
  const preset = { preamp: 0, bands: [] };
  for (const line of lines) {
    const preamp = /^Preamp:\s*(-?[\d.]+)\s*dB/i.exec(line);
    if (preamp) { preset.preamp = Number(preamp[1]); continue; }
    const filter = /^Filter\s*\d*:\s*(ON|OFF)\s+(\w+)\s+Fc\s+([\d.]+)\s*Hz(?:\s+Gain\s+(-?[\d.]+)\s*dB)?(?:\s+Q\s+([\d.]+))?/i.exec(line);
    if (filter) preset.bands.push({ on: filter[1].toUpperCase() === 'ON', type: filter[2].toUpperCase(), fc: Number(filter[3]), gain: Number(filter[4] || 0), q: Number(filter[5] || 0.7071) });
  }
  return preset;
}

const bandText = (band) => `${band.on ? 'ON' : 'OFF'} ${band.type} Fc ${Math.round(band.fc)} Hz` +
  (['PK', 'LSC', 'HSC'].includes(band.type) ? ` Gain ${band.gain.toFixed(1)} dB` : '') + ` Q ${band.q}`;
const x = (f) => WIDTH * Math.log(f / LOW) / Math.log(HIGH / LOW);
const frequencyAt = (px) => LOW * (HIGH / LOW) ** (px / WIDTH);
const y = (db) => HEIGHT / 2 - db * (HEIGHT / 2) / RANGE;

export class Equalizer {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    this.output = null;
    $('eq-output').addEventListener('change', () => { this.output = $('eq-output').value; this.refresh(); });
    $('eq-preset').addEventListener('change', () => this.change(`eqset ${quote(this.output)} ${quote($('eq-preset').value || 'off')}`));
    $('eq-bypass').addEventListener('change', () => this.change(`eqbypass ${quote(this.output)} ${$('eq-bypass').checked ? 1 : 0}`));
    $('eq-balance').addEventListener('change', () => this.change(`eqbalance ${quote(this.output)} ${$('eq-balance').value}`));
    $('eq-crossfeed').addEventListener('change', () => this.change(`eqcrossfeed ${quote(this.output)} ${$('eq-crossfeed').value}`));
    $('eq-add-band').addEventListener('click', () => {
      if (this.preset) this.setBand(this.preset.bands.length + 1, { on: true, type: 'PK', fc: 1000, gain: 0, q: 1 });
    });
    $('eq-import').addEventListener('submit', async (event) => {
      event.preventDefault();
      const name = $('eq-import-name').value.trim();
      const lines = $('eq-import-text').value.split(/\r?\n/).filter((line) => line.trim());
      if (!name || !lines.length) return;
      if (await this.run(`eqimport ${quote(name)} ${lines.map(quote).join(' ')}`)) {
        $('eq-import-text').value = '';
        await this.change(`eqset ${quote(this.output)} ${quote(name)}`);
      }
    });
  }

  async change(line) {
    if (await this.run(line)) await this.refresh();
  }

  async refresh() {
    let statuses, presets;
    try {
      statuses = await this.mpd.records('eqstatus', 'outputname');
      presets = (await this.mpd.command('eqpresets')).fields.map(([, value]) => value);
    } catch {
      return;
    }
    if (!statuses.some((status) => status.outputname === this.output)) this.output = statuses[0]?.outputname ?? null;
    $('eq-output').replaceChildren(...statuses.map((status) => h('option', { value: status.outputname, text: status.outputname, selected: status.outputname === this.output })));
    const status = statuses.find((entry) => entry.outputname === this.output) || {};
    $('eq-preset').replaceChildren(h('option', { value: '', text: t('off') }),
      ...presets.map((name) => h('option', { value: name, text: name, selected: name === status.eq })));
    $('eq-bypass').checked = status.bypass === '1';
    $('eq-balance').value = status.balance || 0;
    $('eq-crossfeed').value = status.crossfeed || 'off';
    this.presetName = status.eq && status.eq !== 'off' ? status.eq : null;
    this.preset = this.presetName ? parsePreset((await this.mpd.command(`eqexport ${quote(this.presetName)}`)).fields.map(([, value]) => value)) : null;
    $('eq-state').textContent = this.preset
      ? t('eqHeadroom', { preamp: this.preset.preamp, headroom: status.headroom, clipped: status.clipped }) : '';
    $('eq-add-band').disabled = !this.preset;
    this.draw();
  }

  /// Replaces band `number` (1-based; one past the end adds it) and redraws from the answer.
  async setBand(number, band) {
    await this.change(`eqband ${quote(this.presetName)} ${number} ${quote(bandText(band))}`);
  }

  draw() {
    const bands = this.preset ? this.preset.bands : [];
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', t('eqCurve'));
    const line = (x1, y1, x2, y2, kind) => {
      const element = document.createElementNS(SVG, 'line');
      for (const [key, value] of Object.entries({ x1, y1, x2, y2, class: kind })) element.setAttribute(key, value);
      svg.append(element);
    };
    for (const f of [100, 1000, 10000]) line(x(f), 0, x(f), HEIGHT, 'grid');
    line(0, y(0), WIDTH, y(0), 'grid');
    const points = [];
    for (let px = 0; px <= WIDTH; px += 3) {
      const f = frequencyAt(px);
      // The bands' shape; the preamp (a level, not a shape) is named below the curve.
      const db = bands.filter((band) => band.on).reduce((sum, band) => sum + bandDB(band, f), 0);
      points.push(`${px},${Math.max(0, Math.min(HEIGHT, y(db))).toFixed(1)}`);
    }
    const curve = document.createElementNS(SVG, 'polyline');
    curve.setAttribute('points', points.join(' '));
    curve.setAttribute('class', 'curve');
    curve.id = 'eq-curve-line';
    svg.append(curve);
    // Each point is a 44-pixel touch target (whatever width the curve is drawn at), with a
    // small solid dot at its centre.
    const scale = ($('eq-curve').clientWidth || WIDTH) / WIDTH;
    bands.forEach((band, index) => {
      const at = { cx: x(band.fc), cy: y(['PK', 'LSC', 'HSC'].includes(band.type) ? band.gain : 0) };
      const centre = document.createElementNS(SVG, 'circle');
      for (const [key, value] of Object.entries({ ...at, r: 6 / scale, class: 'band-dot' })) centre.setAttribute(key, value);
      const dot = document.createElementNS(SVG, 'circle');
      for (const [key, value] of Object.entries({ ...at, r: 22 / scale, class: 'band' })) dot.setAttribute(key, value);
      dot.dataset.band = String(index + 1);
      dot.addEventListener('pointerdown', (event) => this.drag(event, svg, index, dot, centre));
      svg.append(centre, dot);
    });
    $('eq-curve').replaceChildren(svg);
    $('eq-bands').replaceChildren(...bands.map((band, index) => this.row(band, index + 1)));
  }

  /// Dragging a point moves the band's frequency (across) and gain (up and down); the band
  /// is sent once, when the point is let go.
  drag(event, svg, index, dot, centre) {
    event.preventDefault();
    const band = { ...this.preset.bands[index] };
    const box = svg.getBoundingClientRect();
    const move = (moved) => {
      const px = Math.max(0, Math.min(WIDTH, (moved.clientX - box.left) * WIDTH / box.width));
      const py = Math.max(0, Math.min(HEIGHT, (moved.clientY - box.top) * HEIGHT / box.height));
      band.fc = Math.round(frequencyAt(px));
      if (['PK', 'LSC', 'HSC'].includes(band.type)) band.gain = Math.round(((HEIGHT / 2 - py) * RANGE / (HEIGHT / 2)) * 10) / 10;
      for (const point of [dot, centre]) {
        point.setAttribute('cx', x(band.fc));
        point.setAttribute('cy', y(band.gain));
      }
    };
    const up = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      this.setBand(index + 1, band);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  }

  row(band, number) {
    const field = (key, attributes) => h('input', {
      type: 'number', value: band[key], 'aria-label': t('eq_' + key), title: t('eq_' + key), class: 'eq-' + key, ...attributes,
      onchange: (event) => this.setBand(number, { ...band, [key]: Number(event.target.value) }),
    });
    return h('li', { 'data-band': String(number) },
      h('input', { type: 'checkbox', checked: band.on, 'aria-label': t('eqOn'), onchange: (event) => this.setBand(number, { ...band, on: event.target.checked }) }),
      h('select', { 'aria-label': t('eqType'), onchange: (event) => this.setBand(number, { ...band, type: event.target.value }) },
        ...TYPES.map((type) => h('option', { value: type, text: t('eqType_' + type), selected: type === band.type }))),
      field('fc', { min: 10, max: 24000, step: 1 }), field('gain', { min: -30, max: 30, step: 0.1 }), field('q', { min: 0.1, max: 20, step: 0.01 }),
      h('button', { text: t('remove'), 'aria-label': `${t('remove')} ${number}`, onclick: async () => {
        if (await confirmAction(t('confirmRemoveBand', { number }), t('remove'), t('cancel'))) await this.change(`eqband ${quote(this.presetName)} ${number} delete`);
      } }));
  }
}
