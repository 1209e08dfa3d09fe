// SPDX-License-Identifier: BSD-3-Clause
// npyconform adapter for libnpy (github.com/llohse/libnpy, header-only).
//
// libnpy's reader is typed: npy::read_npy<Scalar>(path) needs the element
// type before it reads, and refuses a file whose typestring differs from
// Scalar's. The adapter reads the header once with the library's own header
// API (npy::read_header, then npy::parse_header, which read_npy itself
// calls), picks Scalar from the kind and item size libnpy parsed, and reads
// the file again with npy::read_npy<Scalar>, the public entry point.
//
// What is reported is what read_npy returned: the typestring of Scalar as
// libnpy writes it (dtype_map, which read_npy compared with the header),
// the returned shape and fortran_order, sizeof(Scalar) as itemsize, and the
// hash over the returned vector's bytes. libnpy has no .npz reader.
//
// Exit status: 0 accepted, 1 refused (any C++ exception), 2 usage.
#include "npy.hpp"

#include <openssl/evp.h>

#include <complex>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <typeindex>

static std::string json_string(const std::string &s)
{
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') { o += '\\'; o += (char)c; }
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

template <class T>
static std::string read_as(const std::string &path)
{
    npy::npy_data<T> d = npy::read_npy<T>(path);
    const npy::dtype_t dt = npy::dtype_map.at(std::type_index(typeid(T)));
    std::ostringstream o;
    o << "{\"ok\": true, \"descr\": " << json_string(dt.str()) << ", \"shape\": [";
    for (size_t k = 0; k < d.shape.size(); k++) o << (k ? ", " : "") << d.shape[k];
    const size_t n = d.data.size() * sizeof(T);
    o << "], \"fortran_order\": " << (d.fortran_order ? "true" : "false") << ", \"itemsize\": " << sizeof(T)
      << ", \"payload_sha256\": \"" << sha256(n ? (const void *)d.data.data() : "", n) << "\"}";
    return o.str();
}

// Scalar for the kind and size libnpy parsed; the byte order is left to
// read_npy, which refuses any that differs from Scalar's.
static std::string read_typed(const std::string &path, char kind, unsigned size)
{
    switch (kind) {
    case 'f':
        if (size == sizeof(float)) return read_as<float>(path);
        if (size == sizeof(double)) return read_as<double>(path);
        if (size == sizeof(long double)) return read_as<long double>(path);
        break;
    case 'i':
        if (size == 1) return read_as<signed char>(path);
        if (size == 2) return read_as<int16_t>(path);
        if (size == 4) return read_as<int32_t>(path);
        if (size == 8) return read_as<int64_t>(path);
        break;
    case 'u':
        if (size == 1) return read_as<unsigned char>(path);
        if (size == 2) return read_as<uint16_t>(path);
        if (size == 4) return read_as<uint32_t>(path);
        if (size == 8) return read_as<uint64_t>(path);
        break;
    case 'c':
        if (size == sizeof(std::complex<float>)) return read_as<std::complex<float>>(path);
        if (size == sizeof(std::complex<double>)) return read_as<std::complex<double>>(path);
        if (size == sizeof(std::complex<long double>)) return read_as<std::complex<long double>>(path);
        break;
    }
    throw std::runtime_error(std::string("libnpy has no C++ type for kind '") + kind + "' of " +
                             std::to_string(size) + " bytes");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: libnpy-adapter FILE\n");
        return 2;
    }
    const std::string path = argv[1];
    std::string out;
    try {
        if (path.size() > 4 && path.compare(path.size() - 4, 4, ".npz") == 0)
            throw std::runtime_error("libnpy reads no .npz archives");
        npy::header_t h;
        {
            std::ifstream in(path, std::ifstream::binary);
            if (!in) throw std::runtime_error("io error: failed to open a file.");
            h = npy::parse_header(npy::read_header(in));
        }
        out = read_typed(path, h.dtype.kind, h.dtype.itemsize);
    } catch (const std::exception &e) {
        std::printf("{\"ok\": false, \"error\": %s}\n", json_string(e.what()).c_str());
        return 1;
    }
    std::printf("%s\n", out.c_str());
    return 0;
}
