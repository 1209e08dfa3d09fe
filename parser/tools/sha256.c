/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SHA-256 from OpenSSL's libcrypto, loaded by --hash and only then.
 *
 * Mapping libcrypto costs every process several milliseconds of
 * relocations, which over a list of small files was a fair share of the
 * run; a run without --hash now never loads it. The functions are looked
 * up by name in the shared object whose soname CMake read from the
 * libcrypto it found, so the calls are OpenSSL's own, as if linked.
 */
#define _GNU_SOURCE
#include "npyvalidate.h"

#include <dlfcn.h>

#ifndef NPYG_CRYPTO_SONAME
#error "NPYG_CRYPTO_SONAME must name libcrypto's shared object (set by parser/CMakeLists.txt)"
#endif

int sha256_load(sha256_api *api, const char **why)
{
    void *lib = dlopen(NPYG_CRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        *why = dlerror();
        return -1;
    }
    /* the names OpenSSL 3 exports; EVP_MD_CTX_new and _free are functions
       since 1.1.0, not macros */
    *(void **)&api->ctx_new = dlsym(lib, "EVP_MD_CTX_new");
    *(void **)&api->ctx_free = dlsym(lib, "EVP_MD_CTX_free");
    *(void **)&api->sha256 = dlsym(lib, "EVP_sha256");
    *(void **)&api->init = dlsym(lib, "EVP_DigestInit_ex");
    *(void **)&api->update = dlsym(lib, "EVP_DigestUpdate");
    *(void **)&api->final = dlsym(lib, "EVP_DigestFinal_ex");
    if (!api->ctx_new || !api->ctx_free || !api->sha256 || !api->init || !api->update || !api->final) {
        *why = "libcrypto lacks one of the EVP digest functions";
        dlclose(lib);
        return -1;
    }
    return 0;
}
