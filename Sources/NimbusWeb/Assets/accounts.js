// Cloud accounts: their health (listaccounts), "Add account" drawn from accounttypes, the
// sign-in the daemon runs (a code to enter, an address to open, a code or a password to give
// back), sign out, remove. The `account` idle event says when a sign-in is done.
import { $, h, quote, confirmAction, humanError } from './ui.js';
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
        const done = account.signin === 'signed in';
        $('signin').replaceChildren(h('p', { role: done ? 'status' : 'alert', text: done ? t('signedIn') : humanError(account.signin_problem || account.signin, t) }));
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
        h('strong', { text: account.account }), ` (${t(`kind_${account.type}`) === `kind_${account.type}` ? account.type : t(`kind_${account.type}`)}) — ${humanError(account.state, t)}`,
        account.user ? h('div', { class: 'muted', text: account.user }) : null,
        h('div', { class: 'muted', text: `${account.songs} ${t('songs')}` })),
      needsSignIn ? h('button', { text: t('signIn'), onclick: () => this.signIn(account.account) }) : null,
      !needsSignIn && account.signin !== 'not needed' ? h('button', { text: t('signOut'), 'aria-label': `${t('signOut')} ${account.account}`, onclick: async () => {
        if (await confirmAction(t('confirmSignOut', { name: account.account }), t('signOut'), t('cancel'))) await this.run(`signout ${quote(account.account)}`);
      } }) : null,
      account.origin === 'client' ? h('button', { text: t('remove'), 'aria-label': `${t('remove')} ${account.account}`, onclick: async () => {
        if (await confirmAction(t('confirmRemoveAccount', { name: account.account }), t('remove'), t('cancel'))) await this.run(`removeaccount ${quote(account.account)}`);
      } }) : null,
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
    // Each kind of account by its name, with a line saying what it is and what to have ready;
    // each setting by what it means to a person, not by its key.
    const select = h('select', { id: 'account-type', 'aria-label': t('accountKind') },
      ...this.types.map((type) => h('option', { value: type.type, text: t(`kind_${type.type}`) === `kind_${type.type}` ? type.type : t(`kind_${type.type}`) })));
    const help = h('p', { class: 'muted account-help', 'aria-live': 'polite' });
    const fields = h('div', { id: 'account-fields' });
    const draw = () => {
      const type = this.types.find((entry) => entry.type === select.value);
      const about = t(`help_${type.type}`);
      help.textContent = about === `help_${type.type}` ? '' : about;
      fields.replaceChildren(...type.needs.concat(type.accepts).map((key) => {
        const label = t(`field_${key}`), hint = t(`hint_${key}`);
        return h('label', {}, label === `field_${key}` ? key : label,
          h('input', { name: key, required: type.needs.includes(key) ? true : null, 'aria-label': label === `field_${key}` ? key : label,
            placeholder: hint === `hint_${key}` ? null : hint, type: key === 'url' ? 'url' : 'text', autocomplete: 'off' }));
      }));
    };
    select.addEventListener('change', draw);
    const problem = h('p', { role: 'alert', class: 'form-problem' });
    const form = h('form', { class: 'account-form' },
      h('label', {}, t('accountName'), h('input', { name: 'name', required: true, pattern: '[^\\/.][^\\/]*', 'aria-label': t('accountName'), placeholder: t('hint_name') })),
      h('label', {}, t('accountKind'), select), help, fields, problem, h('button', { type: 'submit', text: t('create') }));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const settings = [...data.entries()].filter(([key, value]) => key !== 'name' && value).map(([key, value]) => `${quote(key)} ${quote(value)}`);
      const name = data.get('name');
      try {
        await this.mpd.command(`addaccount ${quote(name)} ${quote(select.value)} ${settings.join(' ')}`);
      } catch (error) {
        problem.textContent = humanError(error.message, t);
        return;
      }
      form.remove();
      await this.signIn(name);
    });
    draw();
    $('signin').replaceChildren(form);
  }

  async signIn(name) {
    let prompt;
    try {
      prompt = await this.mpd.record(`signin ${quote(name)}`);
    } catch (error) {
      $('signin').replaceChildren(h('p', { role: 'alert', text: humanError(error.message, t) }));
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
          box.append(h('p', { role: 'alert', text: humanError(error.message, t) }));
        }
      });
      box.append(form);
    }
    box.append(h('p', { class: 'muted', text: t('waiting') }));
    $('signin').replaceChildren(box);
  }
}
