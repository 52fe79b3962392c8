// Phones: who may use the Subsonic API (Symfonium, DSub, Amperfy…) and their API keys —
// `subsonicusers`, `subsonicuseradd`, `subsonicuserdelete`, `subsonickeyadd`,
// `subsonickeydelete` on the MPD port. Shown only to a session allowed to run them (admin);
// a new key is shown once, here, and never again.
import { $, h, quote, confirmAction } from './ui.js';
import { t } from './strings.js';

export class Phones {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    $('phone-add').addEventListener('submit', async (event) => {
      event.preventDefault();
      const name = $('phone-name').value.trim(), password = $('phone-password').value;
      if (!name || !password) return;
      if (await run(`subsonicuseradd ${quote(name)} ${quote(password)} ${$('phone-permissions').value}`)) {
        $('phone-password').value = '';
        $('phone-name').value = '';
        await this.refresh();
      }
    });
  }

  async refresh() {
    const users = [];
    try {
      // One record per user; `key` repeats within it.
      for (const [name, value] of (await this.mpd.command('subsonicusers')).fields) {
        if (name === 'user') users.push({ user: value, keys: [] });
        else if (name === 'key' && users.length) users[users.length - 1].keys.push(value);
        else if (users.length) users[users.length - 1][name] = value;
      }
    } catch {
      $('phones').hidden = true;
      return;
    }
    $('phones').hidden = false;
    $('phone-address').textContent = t('phoneAddress', { url: `${location.protocol}//${location.host}` });
    $('phone-list').replaceChildren(...(users.length ? users.map((user) => this.row(user)) : [h('li', { class: 'muted', text: t('noPhones') })]));
  }

  row(user) {
    const keys = [];
    const actions = [h('button', { text: t('newKey'), onclick: () => this.addKey(user.user) })];
    if (user.origin !== 'config') {
      actions.push(h('button', { text: t('remove'), 'aria-label': `${t('remove')} ${user.user}`, onclick: async () => {
        if (await confirmAction(t('confirmRemoveUser', { name: user.user }), t('remove'), t('cancel'))) await this.change(`subsonicuserdelete ${quote(user.user)}`);
      } }));
    }
    for (const id of user.keys) keys.push(h('li', {}, h('span', { text: t('key', { id }) }),
      h('button', { text: t('revoke'), onclick: async () => {
        if (await confirmAction(t('confirmRevoke'), t('revoke'), t('cancel'))) await this.change(`subsonickeydelete ${id}`);
      } })));
    return h('li', {}, h('div', { class: 'row-main' }, h('strong', { text: user.user }), h('span', { class: 'muted', text: ` ${user.permissions}` })),
      h('div', { class: 'row-actions' }, ...actions), keys.length ? h('ul', { class: 'rows' }, ...keys) : '');
  }

  async addKey(name) {
    const answer = await this.run(`subsonickeyadd ${quote(name)} page`);
    if (!answer) return;
    const made = Object.fromEntries(answer.fields);
    await this.refresh();
    $('phone-key').textContent = t('keyShownOnce', { key: made.key });
  }

  async change(line) {
    if (await this.run(line)) await this.refresh();
  }
}
