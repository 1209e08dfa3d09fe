// SPDX-License-Identifier: BSD-3-Clause
// npyconform adapter for gonpy (github.com/kshedden/gonpy).
//
// gonpy's reader is typed: gonpy.NewFileReader reads the header and fills
// Dtype (the typestring without its byte-order character), Endian, Shape
// and ColumnMajor; the array is then read with the one GetXxx method whose
// type matches Dtype. The adapter picks that getter from the Dtype gonpy
// parsed, and reports what gonpy returned: the typestring as Endian and
// Dtype spell it, Shape, ColumnMajor as fortran_order, the Go element size
// as itemsize, and the hash over the returned values written back in the
// file's byte order (Endian). gonpy has no .npz reader.
//
// A panic inside gonpy is not recovered: a program using gonpy would die
// the same way, and the runner reports it as a crash (exit status 2).
//
// Exit status: 0 accepted, 1 refused (an error from gonpy), 2 usage or a
// panic.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kshedden/gonpy"
)

type accepted struct {
	OK            bool   `json:"ok"`
	Descr         string `json:"descr"`
	Shape         []int  `json:"shape"`
	FortranOrder  bool   `json:"fortran_order"`
	Itemsize      int    `json:"itemsize"`
	PayloadSHA256 string `json:"payload_sha256"`
}

type refused struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// values returns the array through the getter for r.Dtype and the size of
// one Go element.
func values(r *gonpy.NpyReader) (interface{}, int, error) {
	switch r.Dtype {
	case "c16":
		v, err := r.GetComplex128()
		return v, 16, err
	case "c8":
		v, err := r.GetComplex64()
		return v, 8, err
	case "f8":
		v, err := r.GetFloat64()
		return v, 8, err
	case "f4":
		v, err := r.GetFloat32()
		return v, 4, err
	case "u8":
		v, err := r.GetUint64()
		return v, 8, err
	case "u4":
		v, err := r.GetUint32()
		return v, 4, err
	case "u2":
		v, err := r.GetUint16()
		return v, 2, err
	case "u1":
		v, err := r.GetUint8()
		return v, 1, err
	case "i8":
		v, err := r.GetInt64()
		return v, 8, err
	case "i4":
		v, err := r.GetInt32()
		return v, 4, err
	case "i2":
		v, err := r.GetInt16()
		return v, 2, err
	case "i1":
		v, err := r.GetInt8()
		return v, 1, err
	}
	return nil, 0, fmt.Errorf("gonpy has no getter for dtype %q", r.Dtype)
}

func read(path string) (*accepted, error) {
	if strings.HasSuffix(path, ".npz") {
		return nil, errors.New("gonpy reads no .npz archives")
	}
	r, err := gonpy.NewFileReader(path)
	if err != nil {
		return nil, err
	}
	v, size, err := values(r)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, r.Endian, v); err != nil {
		return nil, fmt.Errorf("adapter: cannot encode the values: %v", err)
	}
	order := "<"
	if size == 1 {
		order = "|"
	} else if r.Endian == binary.BigEndian {
		order = ">"
	}
	sum := sha256.Sum256(buf.Bytes())
	shape := r.Shape
	if shape == nil {
		shape = []int{}
	}
	return &accepted{
		OK: true, Descr: order + r.Dtype, Shape: shape, FortranOrder: r.ColumnMajor,
		Itemsize: size, PayloadSHA256: hex.EncodeToString(sum[:]),
	}, nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gonpy-adapter FILE")
		os.Exit(2)
	}
	a, err := read(os.Args[1])
	var out interface{} = a
	status := 0
	if err != nil {
		out = refused{OK: false, Error: strings.Join(strings.Fields(err.Error()), " ")}
		status = 1
	}
	line, jerr := json.Marshal(out)
	if jerr != nil {
		fmt.Fprintln(os.Stderr, "gonpy-adapter:", jerr)
		os.Exit(2)
	}
	fmt.Println(string(line))
	os.Exit(status)
}
