// SPDX-License-Identifier: BSD-3-Clause
// npyconform adapter for xtensor's load_npy (Debian libxtensor-dev).
//
// xtensor's reader is typed: load_npy<T> needs the element type before it
// reads. The adapter reads the header once with the library's own header
// reader (xt::detail::load_npy_file, which load_npy calls), then picks T
// from the typestring xtensor parsed and reads the file again with
// xt::load_npy<T>, the public entry point. shape and fortran_order are what
// the returned xarray has (its shape and layout; for 0-D and 1-D arrays, whose
// two layouts are the same, the order the header reader parsed); the payload hash is over
// the array's elements in that layout. xtensor has no .npz reader.
#include <xtensor/xarray.hpp>
#include <xtensor/xnpy.hpp>

#include <openssl/evp.h>

#include <complex>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

static std::string json_escape(const std::string &s)
{
    std::string o;
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') { o += '\\'; o += (char)c; }
        else if (c < 0x20 || c >= 0x7f) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
        else o += (char)c;
    }
    return o;
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
static std::string read_as(const char *path, const std::string &descr, bool header_fortran)
{
    auto a = xt::load_npy<T>(path);
    // the layout of the array load_npy returned, from its strides; a 0-D or
    // 1-D array is the same in both orders, so there the order is the one
    // the library's header reader parsed. The elements are hashed in that
    // layout, as the file stores them.
    const bool fortran = a.dimension() > 1 ? a.strides()[0] == 1 && a.strides().back() != 1 : header_fortran;
    std::ostringstream o;
    o << "{\"ok\": true, \"descr\": \"" << json_escape(descr) << "\", \"shape\": [";
    for (size_t k = 0; k < a.shape().size(); k++) o << (k ? ", " : "") << a.shape()[k];
    o << "], \"fortran_order\": " << (fortran ? "true" : "false") << ", \"itemsize\": " << sizeof(T)
      << ", \"payload_sha256\": \"" << sha256(a.data(), a.size() * sizeof(T)) << "\"}";
    return o.str();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: xtensor-adapter FILE\n");
        return 2;
    }
    const std::string path = argv[1];
    std::string out;
    try {
        if (path.size() > 4 && path.compare(path.size() - 4, 4, ".npz") == 0)
            throw std::runtime_error("xtensor reads no .npz archives");
        std::ifstream in(path, std::ios::binary);
        if (!in) throw std::runtime_error("cannot open the file");
        std::string descr;
        bool fo;
        {
            auto hdr = xt::detail::load_npy_file(in);
            descr = hdr.m_typestring;
            fo = hdr.m_fortran_order;
        }
        const std::string t = descr.size() > 1 ? descr.substr(1) : descr;
        if (t == "f8") out = read_as<double>(argv[1], descr, fo);
        else if (t == "f4") out = read_as<float>(argv[1], descr, fo);
        else if (t == "i8") out = read_as<int64_t>(argv[1], descr, fo);
        else if (t == "i4") out = read_as<int32_t>(argv[1], descr, fo);
        else if (t == "i2") out = read_as<int16_t>(argv[1], descr, fo);
        else if (t == "i1") out = read_as<int8_t>(argv[1], descr, fo);
        else if (t == "u8") out = read_as<uint64_t>(argv[1], descr, fo);
        else if (t == "u4") out = read_as<uint32_t>(argv[1], descr, fo);
        else if (t == "u2") out = read_as<uint16_t>(argv[1], descr, fo);
        else if (t == "u1") out = read_as<uint8_t>(argv[1], descr, fo);
        else if (t == "b1") out = read_as<bool>(argv[1], descr, fo);
        else if (t == "c8") out = read_as<std::complex<float>>(argv[1], descr, fo);
        else if (t == "c16") out = read_as<std::complex<double>>(argv[1], descr, fo);
        else throw std::runtime_error("no C++ type for the typestring '" + descr + "'");
    } catch (const std::exception &e) {
        std::printf("{\"ok\": false, \"error\": \"%s\"}\n", json_escape(e.what()).c_str());
        return 1;
    }
    std::printf("%s\n", out.c_str());
    return 0;
}
