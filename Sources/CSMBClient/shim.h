// libsmbclient through one context per share, with its credentials kept in the context's user
// data (the authentication callback has no other way to reach them) and the calls Swift cannot
// make through function pointers wrapped as plain functions.
#ifndef NIMBUS_CSMBCLIENT_SHIM_H
#define NIMBUS_CSMBCLIENT_SHIM_H
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <libsmbclient.h>

typedef struct {
    char workgroup[128];
    char user[256];
    char password[512];
} nimbus_smb_credentials;

static void nimbus_smb_authenticate(SMBCCTX *context, const char *server, const char *share, char *workgroup, int workgroup_length,
                                    char *user, int user_length, char *password, int password_length) {
    (void)server;
    (void)share;
    nimbus_smb_credentials *credentials = (nimbus_smb_credentials *)smbc_getOptionUserData(context);
    if (credentials == NULL) return;
    if (credentials->workgroup[0] != 0) snprintf(workgroup, workgroup_length, "%s", credentials->workgroup);
    snprintf(user, user_length, "%s", credentials->user);
    snprintf(password, password_length, "%s", credentials->password);
}

static inline void nimbus_smb_set_credentials(nimbus_smb_credentials *credentials, const char *workgroup, const char *user,
                                              const char *password) {
    snprintf(credentials->workgroup, sizeof credentials->workgroup, "%s", workgroup);
    snprintf(credentials->user, sizeof credentials->user, "%s", user);
    snprintf(credentials->password, sizeof credentials->password, "%s", password);
}

/// A context speaking SMB2 or later, with `timeout_ms` on every request, reading
/// `configuration` (a private smb.conf: never the system's, which may name other servers), not
/// falling back to an anonymous login when the credentials are refused.
static inline SMBCCTX *nimbus_smb_open_context(nimbus_smb_credentials *credentials, int timeout_ms, const char *configuration) {
    SMBCCTX *context = smbc_new_context();
    if (context == NULL) return NULL;
    smbc_setDebug(context, 0);
    smbc_setOptionUserData(context, credentials);
    smbc_setFunctionAuthDataWithContext(context, nimbus_smb_authenticate);
    smbc_setOptionUseKerberos(context, 0);
    smbc_setOptionFallbackAfterKerberos(context, 1);
    smbc_setOptionNoAutoAnonymousLogin(context, credentials->user[0] != 0);
    smbc_setTimeout(context, timeout_ms);
    if (configuration != NULL) smbc_setConfiguration(context, configuration);
    if (smbc_init_context(context) == NULL) {
        smbc_free_context(context, 1);
        return NULL;
    }
    smbc_setOptionProtocols(context, "SMB2_02", "SMB3");
    return context;
}

static inline int nimbus_smb_stat(SMBCCTX *c, const char *url, struct stat *st) { return smbc_getFunctionStat(c)(c, url, st); }
static inline SMBCFILE *nimbus_smb_opendir(SMBCCTX *c, const char *url) { return smbc_getFunctionOpendir(c)(c, url); }
static inline const struct libsmb_file_info *nimbus_smb_readdir(SMBCCTX *c, SMBCFILE *dir, struct stat *st) {
    return smbc_getFunctionReaddirPlus2(c)(c, dir, st);
}
static inline int nimbus_smb_closedir(SMBCCTX *c, SMBCFILE *dir) { return smbc_getFunctionClosedir(c)(c, dir); }
static inline SMBCFILE *nimbus_smb_open(SMBCCTX *c, const char *url) { return smbc_getFunctionOpen(c)(c, url, O_RDONLY, 0); }
static inline int nimbus_smb_fstat(SMBCCTX *c, SMBCFILE *file, struct stat *st) { return smbc_getFunctionFstat(c)(c, file, st); }
static inline off_t nimbus_smb_seek(SMBCCTX *c, SMBCFILE *file, off_t offset) { return smbc_getFunctionLseek(c)(c, file, offset, SEEK_SET); }
static inline ssize_t nimbus_smb_read(SMBCCTX *c, SMBCFILE *file, void *buffer, size_t count) {
    return smbc_getFunctionRead(c)(c, file, buffer, count);
}
static inline int nimbus_smb_close(SMBCCTX *c, SMBCFILE *file) { return smbc_getFunctionClose(c)(c, file); }
static inline int nimbus_smb_is_directory(const struct stat *st) { return S_ISDIR(st->st_mode); }
static inline int nimbus_smb_is_file(const struct stat *st) { return S_ISREG(st->st_mode); }

#endif
