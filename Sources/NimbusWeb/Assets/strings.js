// The page's words, one table per language; the browser's language picks one (English
// otherwise). Add a language by adding a table with the same keys.
export const strings = {
  en: {
    now: 'Now playing', queue: 'Queue', library: 'Library', accounts: 'Accounts', offline: 'Offline', volume: 'Volume',
    seek: 'Position', play: 'Play', pause: 'Pause', next: 'Next', previous: 'Previous', random: 'Random', repeat: 'Repeat',
    single: 'Single', consume: 'Consume', options: 'Playback options', connecting: 'Connecting…', disconnected: 'Not connected',
    nothing: 'Nothing is playing', search: 'Search', add: 'Add', playNow: 'Play now', keepOffline: 'Keep offline', up: 'Up',
    home: 'Library', noResults: 'Nothing found', addAccount: 'Add account', type: 'Type', name: 'Name', create: 'Add',
    signIn: 'Sign in', signOut: 'Sign out', remove: 'Remove', enterCode: 'Open {url} and enter the code {code}',
    openLink: 'Open {url} and log in', openConsent: 'Open this address, allow access, and paste the code or the address it ends at:',
    code: 'Code', password: 'Password', send: 'Send', waiting: 'Waiting for you to confirm…', signedIn: 'Signed in',
    hostKeyNew: 'The server presents the host key {key}. Compare it with what the server itself shows (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub).',
    hostKeySame: 'It is the same key', hostKeyKnown: 'The server presents the host key {key}, trusted before.',
    songs: 'songs', pause_: 'Pause', resume: 'Resume', retry: 'Retry', unpin: 'Remove', noPins: 'Nothing is kept offline yet.',
    noAccounts: 'No cloud accounts yet.', cloud: 'cloud', clear: 'Clear queue', playlists: 'Playlists', settings: 'Settings',
    outputs: 'Outputs', moveUp: 'Move up', load: 'Load', rename: 'Rename', noPlaylists: 'No playlists yet.', saveAs: 'Save queue as', save: 'Save',
    replaygain: 'ReplayGain', crossfade: 'Crossfade (s)', mixrampdb: 'MixRamp threshold (dB)', update: 'Update library',
    updating: 'Updating…', songCount: 'Songs', albums: 'Albums', artists: 'Artists', uptime: 'Running for', protocol: 'Protocol',
    off: 'Off', track: 'Track', album: 'Album', auto: 'Auto',
    insert: 'Play next', addToPlaylist: 'Add to playlist', newPlaylist: 'New playlist…', listenHere: 'Listen here',
    searchHint: 'Title, artist, album…', genres: 'Genres', folders: 'Folders', priority: 'Priority', moveDown: 'Move down',
    version: 'Version', dbUpdated: 'Library updated', playtime: 'Total time',
    spaceUsed: '{used} of {size} cache used', spacePinned: '{pinned} kept offline', diskFree: '{free} free on the disk',
    resumesAt: 'Resumes here', played: 'Played', unplayed: 'Not played yet',
    more: 'More', podcasts: 'Podcasts', feedAddress: 'Feed address (RSS)', subscribe: 'Subscribe', refreshAll: 'Refresh all', refresh: 'Refresh',
    unsubscribe: 'Unsubscribe', open: 'Open', noPodcasts: 'No podcasts yet: paste a feed address above.', episodes: '{count} episodes',
    newEpisodes: '{count} new', refreshFailed: 'last refresh failed', keepNewest: 'Keep newest {count}', keepNone: 'Not offline', subscribing: 'Reading the feed…', refreshing: 'Refreshing…',
    sleepTimer: 'Sleep timer', endOfSong: 'End of song', sleepIn: 'pauses in {time}',
    cacheSpace: 'Cache space', timeLeft: '{minutes} min left', showSongs: 'Songs', hideSongs: 'Hide songs',
    state_queued: 'queued', state_downloading: 'downloading', state_completed: 'completed', state_paused: 'paused',
    state_failed: 'failed', state_waiting_for_space: 'waiting for space', state_sign_in_needed: 'sign-in needed',
  },
  ru: {
    now: 'Сейчас играет', queue: 'Очередь', library: 'Фонотека', accounts: 'Облака', offline: 'Офлайн', volume: 'Громкость',
    seek: 'Позиция', play: 'Играть', pause: 'Пауза', next: 'Следующая', previous: 'Предыдущая', random: 'Случайно',
    repeat: 'Повтор', single: 'Одна песня', consume: 'Удалять сыгранные', options: 'Режимы воспроизведения',
    connecting: 'Подключение…', disconnected: 'Нет связи', nothing: 'Ничего не играет', search: 'Поиск', add: 'Добавить',
    playNow: 'Играть сейчас', keepOffline: 'Хранить офлайн', up: 'Вверх', home: 'Фонотека', noResults: 'Ничего не найдено',
    addAccount: 'Добавить облако', type: 'Тип', name: 'Имя', create: 'Добавить', signIn: 'Войти', signOut: 'Выйти',
    remove: 'Удалить', enterCode: 'Откройте {url} и введите код {code}', openLink: 'Откройте {url} и войдите',
    openConsent: 'Откройте этот адрес, разрешите доступ и вставьте код или адрес, на котором всё закончилось:',
    code: 'Код', password: 'Пароль', send: 'Отправить', waiting: 'Ждём подтверждения…', signedIn: 'Вход выполнен',
    hostKeyNew: 'Сервер предъявляет ключ {key}. Сравните его с тем, что показывает сам сервер (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub).',
    hostKeySame: 'Это тот же ключ', hostKeyKnown: 'Сервер предъявляет ключ {key}, которому уже доверяли.',
    songs: 'песен', pause_: 'Пауза', resume: 'Продолжить', retry: 'Повторить', unpin: 'Удалить',
    noPins: 'Пока ничего не хранится офлайн.', noAccounts: 'Облаков пока нет.', cloud: 'облако', clear: 'Очистить очередь',
    playlists: 'Плейлисты', settings: 'Настройки', outputs: 'Выходы', moveUp: 'Выше', load: 'Загрузить', rename: 'Переименовать', noPlaylists: 'Плейлистов пока нет.',
    saveAs: 'Сохранить очередь как', save: 'Сохранить', replaygain: 'ReplayGain', crossfade: 'Плавный переход (с)',
    mixrampdb: 'Порог MixRamp (дБ)', update: 'Обновить фонотеку', updating: 'Обновление…', songCount: 'Песни', albums: 'Альбомы',
    artists: 'Исполнители', uptime: 'Работает', protocol: 'Протокол', off: 'Выкл.', track: 'Трек', album: 'Альбом', auto: 'Авто',
    insert: 'Играть следующей', addToPlaylist: 'Добавить в плейлист', newPlaylist: 'Новый плейлист…', listenHere: 'Слушать здесь',
    searchHint: 'Название, исполнитель, альбом…', genres: 'Жанры', folders: 'Папки', priority: 'Приоритет', moveDown: 'Ниже',
    version: 'Версия', dbUpdated: 'Фонотека обновлена', playtime: 'Общее время',
    spaceUsed: 'Кэш: занято {used} из {size}', spacePinned: 'офлайн: {pinned}', diskFree: 'свободно на диске: {free}',
    resumesAt: 'Продолжится отсюда', played: 'Прослушано', unplayed: 'Ещё не слушали',
    more: 'Ещё', podcasts: 'Подкасты', feedAddress: 'Адрес ленты (RSS)', subscribe: 'Подписаться', refreshAll: 'Обновить все', refresh: 'Обновить',
    unsubscribe: 'Отписаться', open: 'Открыть', noPodcasts: 'Подкастов пока нет: вставьте адрес ленты выше.', episodes: 'выпусков: {count}',
    newEpisodes: 'новых: {count}', refreshFailed: 'обновление не удалось', keepNewest: 'Хранить {count} новых', keepNone: 'Не хранить', subscribing: 'Читаем ленту…', refreshing: 'Обновляем…',
    sleepTimer: 'Таймер сна', endOfSong: 'В конце песни', sleepIn: 'пауза через {time}',
    cacheSpace: 'Место в кэше', timeLeft: 'осталось {minutes} мин', showSongs: 'Песни', hideSongs: 'Скрыть песни',
    state_queued: 'в очереди', state_downloading: 'загружается', state_completed: 'загружено', state_paused: 'на паузе',
    state_failed: 'ошибка', state_waiting_for_space: 'ждёт места', state_sign_in_needed: 'нужен вход',
  },
};

const language = (navigator.languages || [navigator.language]).map((tag) => tag.slice(0, 2)).find((tag) => strings[tag]) || 'en';
export const lang = language;

/// A string in the page's language, with {name} filled from `values`.
export function t(key, values = {}) {
  const text = strings[language][key] ?? strings.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => values[name] ?? '');
}
