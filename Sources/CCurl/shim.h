// Typed wrappers for libcurl's variadic calls, which Swift cannot import.
#ifndef NIMBUS_CCURL_SHIM_H
#define NIMBUS_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_offt(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_write_cb(CURL *h, CURLoption o, curl_write_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_xferinfo_cb(CURL *h, curl_xferinfo_callback v) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v); }
static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_offt(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_str(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
typedef int (*ccurl_hostkey_callback)(void *clientp, int keytype, const char *key, size_t keylen);
static inline CURLcode ccurl_setopt_hostkey_cb(CURL *h, ccurl_hostkey_callback v) { return curl_easy_setopt(h, CURLOPT_SSH_HOSTKEYFUNCTION, v); }
static inline long ccurl_ssh_auth_password(void) { return (long)CURLSSH_AUTH_PASSWORD; }
static inline long ccurl_ssh_auth_publickey(void) { return (long)CURLSSH_AUTH_PUBLICKEY; }
static inline long ccurl_auth_basic(void) { return (long)CURLAUTH_BASIC; }
static inline long ccurl_auth_basic_or_digest(void) { return (long)(CURLAUTH_BASIC | CURLAUTH_DIGEST); }
static inline curl_version_info_data *ccurl_version_info(void) { return curl_version_info(CURLVERSION_NOW); }
static inline CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

#endif
