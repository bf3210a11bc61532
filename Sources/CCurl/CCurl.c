// libcurl on Linux only: compiled empty elsewhere (the iOS SDK has no curl headers).
#if defined(__linux__)
#define _GNU_SOURCE
#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// The libcurl functions imgcache calls, found in the library once it is open.
static struct {
    CURLcode (*global_init)(long);
    curl_version_info_data *(*version_info)(CURLversion);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMcode (*multi_timeout)(CURLM *, long *);
    const char *(*multi_strerror)(CURLMcode);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure;
static int found;
static char message[512];

// The system's library folders, searched in this order for libcurl.so.4 (libcurl4's ABI, whichever
// TLS flavour is installed) by absolute path: never by soname alone, which the dynamic loader
// would also look up beside the binary ($ORIGIN, which SwiftPM adds to the executable's run path)
// and in LD_LIBRARY_PATH, where anybody who can write a folder a copy of imgcache sits in could
// have put a libcurl.so.4 of their own.
static const char *const folders[] = {
#if defined(__x86_64__)
    "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
    "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
#elif defined(__arm__)
    "/usr/lib/arm-linux-gnueabihf", "/lib/arm-linux-gnueabihf",
#elif defined(__riscv)
    "/usr/lib/riscv64-linux-gnu", "/lib/riscv64-linux-gnu",
#endif
    "/usr/lib64", "/lib64", "/usr/lib", "/lib", NULL,
};

static void *open_library(void) {
#ifdef DEBUG
    // Tests name another file here (a missing one, libcurl's GnuTLS flavour); a release build
    // takes no library from the environment.
    const char *path = getenv("IMGCACHE_LIBCURL");
    if (path && *path) {
        void *library = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
        if (!library) snprintf(message, sizeof message, "%s", dlerror());
        return library;
    }
#endif
    char path_in_folder[256];
    for (const char *const *folder = folders; *folder; folder++) {
        snprintf(path_in_folder, sizeof path_in_folder, "%s/libcurl.so.4", *folder);
        void *library = dlopen(path_in_folder, RTLD_LAZY | RTLD_LOCAL);
        if (library) return library;
        (void)dlerror();
    }
    snprintf(message, sizeof message, "libcurl.so.4 is not in the system's library folders");
    return NULL;
}

static void load(void) {
    void *library = open_library();
    if (!library) {
        failure = message;
        return;
    }
    found = 1;
#define FIND(field, name)                                                                  \
    if (!(*(void **)&curl.field = dlsym(library, name))) {                                 \
        snprintf(message, sizeof message, "libcurl.so.4 has no %s (libcurl 7.87 or later is needed)", name); \
        failure = message;                                                                 \
        return;                                                                            \
    }
    FIND(global_init, "curl_global_init")
    FIND(version_info, "curl_version_info")
    FIND(multi_init, "curl_multi_init")
    FIND(multi_cleanup, "curl_multi_cleanup")
    FIND(multi_setopt, "curl_multi_setopt")
    FIND(multi_add_handle, "curl_multi_add_handle")
    FIND(multi_remove_handle, "curl_multi_remove_handle")
    FIND(multi_perform, "curl_multi_perform")
    FIND(multi_info_read, "curl_multi_info_read")
    FIND(multi_poll, "curl_multi_poll")
    FIND(multi_wakeup, "curl_multi_wakeup")
    FIND(multi_timeout, "curl_multi_timeout")
    FIND(multi_strerror, "curl_multi_strerror")
    FIND(easy_init, "curl_easy_init")
    FIND(easy_cleanup, "curl_easy_cleanup")
    FIND(easy_reset, "curl_easy_reset")
    FIND(easy_strerror, "curl_easy_strerror")
    FIND(easy_setopt, "curl_easy_setopt")
    FIND(easy_getinfo, "curl_easy_getinfo")
    FIND(slist_append, "curl_slist_append")
    FIND(slist_free_all, "curl_slist_free_all")
#undef FIND
    // 7.87: TLS written through libcurl's own OpenSSL BIO, which never raises SIGPIPE (before,
    // OpenSSL wrote to the socket itself, and a peer's reset could kill the process: libcurl is
    // told not to touch signals). Also CURLOPT_PREREQFUNCTION (7.80), which tells a time-out while
    // connecting from one while waiting.
    // A check of what the library can do, not a safety one: its constructors have run already.
    const curl_version_info_data *info = curl.version_info(CURLVERSION_NOW);
    if (info->version_num < 0x075700) {
        snprintf(message, sizeof message, "libcurl %s is too old (7.87 or later is needed)", info->version);
        failure = message;
        return;
    }
    // The transport reads OpenSSL's verification codes and hands libcurl a hashed CA folder,
    // which other TLS back ends read differently or not at all; without an asynchronous resolver
    // a lookup would block the transfer thread with no time-out; without HTTP/2 many images from
    // one host would take a connection each.
    if (!(info->features & CURL_VERSION_SSL) || !info->ssl_version || strncmp(info->ssl_version, "OpenSSL/", 8) != 0) {
        snprintf(message, sizeof message, "libcurl %s uses %s, not OpenSSL", info->version,
                 info->ssl_version ? info->ssl_version : "no TLS library");
        failure = message;
        return;
    }
    if (!(info->features & CURL_VERSION_ASYNCHDNS)) {
        snprintf(message, sizeof message, "libcurl %s looks names up without an asynchronous resolver", info->version);
        failure = message;
        return;
    }
    if (!(info->features & CURL_VERSION_HTTP2)) {
        snprintf(message, sizeof message, "libcurl %s has no HTTP/2", info->version);
        failure = message;
        return;
    }
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        failure = "curl_global_init failed";
    }
}

const char *imgcache_curl_load(void) {
    pthread_once(&once, load);
    return failure;
}

static void *load_on_thread(void *unused) {
    (void)unused;
    pthread_once(&once, load);
    return NULL;
}

_Bool imgcache_curl_start_loading(void) {
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return 0;
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    int created = pthread_create(&thread, &attributes, load_on_thread, NULL);
    pthread_attr_destroy(&attributes);
    return created == 0;
}

_Bool imgcache_curl_was_found(void) {
    pthread_once(&once, load);
    return found;
}

int imgcache_memory_file(const void *bytes, size_t count) {
    int descriptor = memfd_create("imgcache-ca", MFD_CLOEXEC);
    if (descriptor < 0) return -1;
    const char *next = bytes;
    while (count > 0) {
        ssize_t written = write(descriptor, next, count);
        if (written < 0) {
            close(descriptor);
            return -1;
        }
        next += written;
        count -= (size_t)written;
    }
    return descriptor;
}

const char *imgcache_curl_default_ca_file(void) {
    return curl.version_info(CURLVERSION_NOW)->cainfo;
}

const char *imgcache_curl_default_ca_folder(void) {
    return curl.version_info(CURLVERSION_NOW)->capath;
}

CURLM *imgcache_curl_multi_init(void) { return curl.multi_init(); }
CURLMcode imgcache_curl_multi_cleanup(CURLM *multi) { return curl.multi_cleanup(multi); }
CURLMcode imgcache_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl.multi_setopt(multi, option, value);
}
CURLMcode imgcache_curl_multi_add_handle(CURLM *multi, CURL *handle) { return curl.multi_add_handle(multi, handle); }
CURLMcode imgcache_curl_multi_remove_handle(CURLM *multi, CURL *handle) { return curl.multi_remove_handle(multi, handle); }
CURLMcode imgcache_curl_multi_perform(CURLM *multi, int *running) { return curl.multi_perform(multi, running); }
CURLMsg *imgcache_curl_multi_info_read(CURLM *multi, int *left) { return curl.multi_info_read(multi, left); }
CURLMcode imgcache_curl_multi_poll(CURLM *multi, int timeout_ms, int *ready) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, ready);
}
CURLMcode imgcache_curl_multi_timeout(CURLM *multi, long *timeout_ms) { return curl.multi_timeout(multi, timeout_ms); }
CURLMcode imgcache_curl_multi_wakeup(CURLM *multi) { return curl.multi_wakeup(multi); }
const char *imgcache_curl_multi_strerror(CURLMcode code) { return curl.multi_strerror(code); }

CURL *imgcache_curl_easy_init(void) { return curl.easy_init(); }
void imgcache_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
void imgcache_curl_easy_reset(CURL *handle) { curl.easy_reset(handle); }
const char *imgcache_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }
CURLcode imgcache_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode imgcache_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode imgcache_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode imgcache_curl_easy_setopt_write(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl.easy_setopt(handle, option, callback);
}
CURLcode imgcache_curl_easy_setopt_opensocket(CURL *handle, curl_opensocket_callback callback) {
    return curl.easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}
CURLcode imgcache_curl_easy_setopt_prereq(CURL *handle, curl_prereq_callback callback) {
    return curl.easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}
CURLcode imgcache_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}

struct curl_slist *imgcache_curl_slist_append(struct curl_slist *list, const char *string) {
    return curl.slist_append(list, string);
}
void imgcache_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

#endif
