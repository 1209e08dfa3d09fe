// SPDX-License-Identifier: BSD-3-Clause
// npyconform adapter for cnpy (github.com/rogersce/cnpy).
//
// cnpy is untyped: cnpy::npy_load returns an NpyArray holding the shape,
// the word size, fortran_order and the payload bytes, and leaves the element
// type to the caller (arr.data<T>()). Its header parser reads neither the
// type kind nor the byte order as a value (it only asserts that the byte
// order is '<' or '|'), so the adapter reports no descr: it reports what
// cnpy returned, with word_size as itemsize and the hash over the bytes
// cnpy loaded (num_bytes() of them, in the file's order).
//
// A path ending in .npz is read with cnpy::npz_load(path), which returns a
// map from the member name (with cnpy's idea of the ".npy" suffix removed)
// to its array; every entry is listed as a member.
//
// Exit status: 0 accepted, 1 refused (any C++ exception), 2 usage. An
// assert inside cnpy aborts the process: that is cnpy's behaviour, and the
// runner reports it as a crash.
#include "cnpy.h"

#include <openssl/evp.h>

#include <cstdio>
#include <exception>
#include <sstream>
#include <string>

// Length of the well-formed UTF-8 sequence at s[i], or 0.
static size_t utf8_len(const std::string &s, size_t i)
{
    const unsigned char c = (unsigned char)s[i];
    size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (!n || i + n > s.size()) return 0;
    unsigned cp = c & (0x7f >> n);
    for (size_t k = 1; k < n; k++) {
        const unsigned char d = (unsigned char)s[i + k];
        if ((d & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (d & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

// A member name is the bytes cnpy returned: well-formed UTF-8 goes through
// as it is (JSON is UTF-8), any other byte b is shown as U+00bb.
static std::string json_string(const std::string &s)
{
    std::string o = "\"";
    for (size_t i = 0; i < s.size(); i++) {
        const unsigned char c = (unsigned char)s[i];
        size_t n = c >= 0x80 ? utf8_len(s, i) : 0;
        if (n) { o.append(s, i, n); i += n - 1; }
        else if (c == '"' || c == '\\') { o += '\\'; o += (char)c; }
        else if (c < 0x20 || c >= 0x7f) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
        else o += (char)c;
    }
    return o + "\"";
}

static std::string sha256(const void *p, size_t n)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(p, n, md, &len, EVP_sha256(), nullptr);
    std::string hex;
    char b[3];
    for (unsigned int k = 0; k < len; k++) { std::snprintf(b, sizeof b, "%02x", md[k]); hex += b; }
    return hex;
}

// The protocol's fields of one array as cnpy returned it.
static std::string fields(const cnpy::NpyArray &a)
{
    std::ostringstream o;
    o << "\"shape\": [";
    for (size_t k = 0; k < a.shape.size(); k++) o << (k ? ", " : "") << a.shape[k];
    const size_t n = a.data_holder ? a.num_bytes() : 0;
    o << "], \"fortran_order\": " << (a.fortran_order ? "true" : "false") << ", \"itemsize\": " << a.word_size
      << ", \"payload_sha256\": \"" << sha256(n ? a.data_holder->data() : "", n) << "\"";
    return o.str();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: cnpy-adapter FILE\n");
        return 2;
    }
    const std::string path = argv[1];
    std::string out;
    try {
        if (path.size() > 4 && path.compare(path.size() - 4, 4, ".npz") == 0) {
            cnpy::npz_t arrays = cnpy::npz_load(path);
            out = "{\"ok\": true, \"members\": [";
            bool first = true;
            for (const auto &kv : arrays) {
                out += first ? "" : ", ";
                out += "{\"name\": " + json_string(kv.first) + ", " + fields(kv.second) + "}";
                first = false;
            }
            out += "]}";
        } else {
            cnpy::NpyArray a = cnpy::npy_load(path);
            out = "{\"ok\": true, " + fields(a) + "}";
        }
    } catch (const std::exception &e) {
        std::printf("{\"ok\": false, \"error\": %s}\n", json_string(e.what()).c_str());
        return 1;
    }
    std::printf("%s\n", out.c_str());
    return 0;
}
