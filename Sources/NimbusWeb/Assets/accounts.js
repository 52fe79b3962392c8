// Cloud accounts: their health (listaccounts), "Add account" drawn from accounttypes, the
// sign-in the daemon runs (a code to enter, an address to open, a code or a password to give
// back), sign out, remove. The `account` idle event says when a sign-in is done.
import { $, h, quote } from './ui.js';
import { t } from './strings.js';

export class Accounts {
  constructor(mpd, run, onSignedIn) {
    this.mpd = mpd;
    this.run = run;
    this.onSignedIn = onSignedIn;
    this.types = [];
    this.signingIn = null;
    $('add-account').addEventListener('click', () => this.showForm());
  }

  async refresh() {
    const accounts = await this.mpd.records('listaccounts', 'account');
    $('account-list').replaceChildren(...(accounts.length ? accounts.map((account) => this.row(account)) : [h('li', { text: t('noAccounts') })]));
    if (this.signingIn) {
      const account = accounts.find((entry) => entry.account === this.signingIn);
      if (account && account.signin !== 'waiting') {
        $('signin').replaceChildren(h('p', { role: 'status', text: account.signin === 'signed in' ? t('signedIn') : account.signin_problem || account.signin }));
        if (account.signin === 'signed in') this.onSignedIn(account.account);
        this.signingIn = null;
      }
    }
    return accounts;
  }

  row(account) {
    const needsSignIn = !['signed in', 'not needed'].includes(account.signin);
    return h('li', { class: 'account' },
      h('div', { class: 'row-main' },
        h('strong', { text: account.account }), ` (${account.type}) — ${account.state}`,
        account.user ? h('div', { class: 'muted', text: account.user }) : null,
        h('div', { class: 'muted', text: `${account.songs} ${t('songs')}` })),
      needsSignIn ? h('button', { text: t('signIn'), onclick: () => this.signIn(account.account) }) : null,
      !needsSignIn && account.signin !== 'not needed' ? h('button', { text: t('signOut'), onclick: () => this.run(`signout ${quote(account.account)}`) }) : null,
      account.origin === 'client' ? h('button', { text: t('remove'), onclick: () => this.run(`removeaccount ${quote(account.account)}`) }) : null,
    );
  }

  async showForm() {
    if (!this.types.length) {
      const fields = (await this.mpd.command('accounttypes')).fields;
      for (const [key, value] of fields) {
        if (key === 'type') this.types.push({ type: value, needs: [], accepts: [] });
        else if (key === 'signin') this.types[this.types.length - 1].signin = value;
        else if (key === 'needs' || key === 'accepts') this.types[this.types.length - 1][key].push(value);
      }
    }
    const select = h('select', { id: 'account-type', 'aria-label': t('type') },
      ...this.types.map((type) => h('option', { value: type.type, text: type.type })));
    const fields = h('div', { id: 'account-fields' });
    const draw = () => {
      const type = this.types.find((entry) => entry.type === select.value);
      fields.replaceChildren(...type.needs.concat(type.accepts).map((key) => h('label', {}, key,
        h('input', { name: key, required: type.needs.includes(key) ? true : null, 'aria-label': key }))));
    };
    select.addEventListener('change', draw);
    const form = h('form', { class: 'account-form' },
      h('label', {}, t('name'), h('input', { name: 'name', required: true, pattern: '[^/.][^/]*', 'aria-label': t('name') })),
      h('label', {}, t('type'), select), fields, h('button', { type: 'submit', text: t('create') }));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const settings = [...data.entries()].filter(([key, value]) => key !== 'name' && value).map(([key, value]) => `${quote(key)} ${quote(value)}`);
      const name = data.get('name');
      if (await this.run(`addaccount ${quote(name)} ${quote(select.value)} ${settings.join(' ')}`) !== null) {
        form.remove();
        await this.signIn(name);
      }
    });
    draw();
    $('signin').replaceChildren(form);
  }

  async signIn(name) {
    let prompt;
    try {
      prompt = await this.mpd.record(`signin ${quote(name)}`);
    } catch (error) {
      $('signin').replaceChildren(h('p', { role: 'alert', text: error.message }));
      return;
    }
    this.signingIn = name;
    const link = (url) => h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', text: url });
    const box = h('div', { class: 'signin-box', 'aria-live': 'polite' });
    // The sentence with the link in its place (the marker is a character no translation uses).
    const sentence = (key, url, values = {}) => {
      const [before, after = ''] = t(key, { ...values, url: '\u0001' }).split('\u0001');
      return h('p', {}, before, link(url), after);
    };
    if (prompt.method === 'device') {
      box.append(sentence('enterCode', prompt.verification_url, { code: '' }), h('p', { class: 'code', text: prompt.user_code }));
    } else if (prompt.method === 'browser') {
      box.append(sentence('openLink', prompt.verification_url));
    } else {
      const secret = prompt.method === 'password';
      if (!secret) box.append(h('p', { text: t('openConsent') }), h('p', {}, link(prompt.authorize_url)));
      const input = h('input', { type: secret ? 'password' : 'text', 'aria-label': t(secret ? 'password' : 'code'), autocomplete: secret ? 'current-password' : 'off' });
      // An SSH server's host key: shown, and a new one confirmed, before the password goes out.
      let same = null;
      if (prompt.fingerprint) {
        const known = prompt.host_key === 'known';
        box.append(h('p', { class: 'fingerprint', text: t(known ? 'hostKeyKnown' : 'hostKeyNew', { key: prompt.fingerprint }) }));
        if (!known) same = h('input', { type: 'checkbox', required: '' });
      }
      const form = h('form', {}, same ? h('label', {}, same, ' ', t('hostKeySame')) : null, input, h('button', { type: 'submit', text: t('send') }));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const command = secret ? 'signinpassword' : 'signincode';
        try {
          await this.mpd.command(`${command} ${quote(name)} ${quote(input.value)}`);
        } catch (error) {
          box.append(h('p', { role: 'alert', text: error.message }));
        }
      });
      box.append(form);
    }
    box.append(h('p', { class: 'muted', text: t('waiting') }));
    $('signin').replaceChildren(box);
  }
}
