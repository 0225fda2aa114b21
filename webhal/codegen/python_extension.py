"""compile_to's python_extension: C++ source of a CPython extension module whose function of the
pipeline's name calls the ahead-of-time entry point (link it with the object or static library),
as Halide's generated `.py.cpp` is used:

    c++ -shared -fPIC -I<python include> name.py.cpp name.o \
        -o name$(python3-config --extension-suffix)

then `import name; name.name(input_array, offset, output_array)`. Buffers are anything with the
buffer protocol (numpy arrays) or `__array__` (hl.Buffer, whose mins are kept); numpy's axes are
reversed, so an array of shape (height, width) is a buffer of x = width, as hl.Buffer does.
Scalars are range-checked. A failed call raises RuntimeError("Halide Runtime Error: <code>"), as
Halide's does, with the runtime's message as the exception's note (Python 3.11+; shown in
tracebacks, in `e.__notes__`). As in Halide's, defining
HALIDE_PYTHON_EXTENSION_OMIT_MODULE_DEFINITION leaves out the module definition (to combine
several pipelines in one module, HALIDE_PYTHON_EXTENSION_MODULE_NAME naming it).
"""

from __future__ import annotations

from webhal.codegen.c_header import c_parameter, pipeline_header

# A scalar's C type, its range for the check, and how Python gives it.
_SCALARS = {("int", 8): ("int8_t", -(1 << 7), (1 << 7) - 1), ("int", 16): ("int16_t", -(1 << 15),
                                                                          (1 << 15) - 1),
            ("int", 32): ("int32_t", -(1 << 31), (1 << 31) - 1),
            ("uint", 8): ("uint8_t", 0, (1 << 8) - 1), ("uint", 16): ("uint16_t", 0, (1 << 16) - 1),
            ("uint", 32): ("uint32_t", 0, (1 << 32) - 1)}

_INCLUDES = """
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
"""

_SUPPORT = r"""
#ifndef WEBHAL_PYTHON_EXTENSION_SUPPORT
#define WEBHAL_PYTHON_EXTENSION_SUPPORT
extern "C" char webhal_pyext_last_error[1024];

namespace {

// One buffer argument: a Py_buffer viewed as a halide_buffer_t, numpy's axes reversed.
struct WebhalPyBuffer {
    Py_buffer view;
    bool held = false;
    PyObject *array = nullptr;  // from __array__, for objects without the buffer protocol
    halide_dimension_t dims[8];
    halide_buffer_t buf;

    ~WebhalPyBuffer() {
        if (held) PyBuffer_Release(&view);
        Py_XDECREF(array);
    }

    bool unpack(PyObject *obj, bool writable, const char *name, int dimensions) {
        memset(&view, 0, sizeof(view));
        memset(&buf, 0, sizeof(buf));
        int flags = PyBUF_FORMAT | PyBUF_STRIDED_RO | (writable ? PyBUF_WRITABLE : 0);
        PyObject *source = obj;
        if (!PyObject_CheckBuffer(obj) && PyObject_HasAttrString(obj, "__array__")) {
            array = PyObject_CallMethod(obj, "__array__", NULL);
            if (!array) return false;
            source = array;
        }
        if (PyObject_GetBuffer(source, &view, flags) < 0) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "argument %s: expected a %s array of %d dimensions "
                         "(numpy's buffer protocol), not %s", name,
                         writable ? "writable" : "readable", dimensions, Py_TYPE(obj)->tp_name);
            return false;
        }
        held = true;
        if (view.ndim != dimensions || dimensions > 8) {
            PyErr_Format(PyExc_ValueError, "argument %s: expected %d dimensions, got %d", name,
                         dimensions, view.ndim);
            return false;
        }
        for (int i = 0; i < view.ndim; i++) {
            int j = view.ndim - 1 - i;  // numpy's axis j is dimension i
            dims[i].min = 0;
            dims[i].extent = (int32_t)view.shape[j];
            dims[i].stride = (int32_t)(view.strides[j] / view.itemsize);
            dims[i].flags = 0;
        }
        if (array && PyObject_HasAttrString(obj, "mins")) {  // an hl.Buffer: its own mins
            PyObject *mins = PyObject_CallMethod(obj, "mins", NULL);
            if (!mins) return false;
            for (int i = 0; i < view.ndim && i < (int)PySequence_Size(mins); i++) {
                PyObject *m = PySequence_GetItem(mins, i);
                dims[i].min = (int32_t)PyLong_AsLong(m);
                Py_XDECREF(m);
            }
            Py_DECREF(mins);
        }
        const char *p = view.format ? view.format : "B";
        while (*p && strchr("@<>!=", *p)) p++;
        buf.type.lanes = 1;
        buf.type.bits = (uint8_t)(view.itemsize * 8);
        if (*p == '?') {
            buf.type.code = halide_type_uint;
            buf.type.bits = 1;
        } else if (*p == 'e' || *p == 'f' || *p == 'd') {
            buf.type.code = halide_type_float;
        } else if (*p && strchr("bhilq", *p)) {
            buf.type.code = halide_type_int;
        } else if (*p && strchr("BHILQ", *p)) {
            buf.type.code = halide_type_uint;
        } else {
            PyErr_Format(PyExc_ValueError, "argument %s: elements of format '%s' are not numbers "
                         "a pipeline takes", name, view.format);
            return false;
        }
        buf.host = (uint8_t *)view.buf;
        buf.dimensions = view.ndim;
        buf.dim = dims;
        return true;
    }
};

inline bool webhal_integer(PyObject *obj, const char *name, const char *type, long long lo,
                    unsigned long long hi, long long *out) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "argument %s: expected an integer (%s), not %s", name,
                     type, Py_TYPE(obj)->tp_name);
        return false;
    }
    if (overflow || v < lo || (v > 0 && (unsigned long long)v > hi)) {
        PyErr_Format(PyExc_ValueError, "argument %s: %S does not fit in %s", name, obj, type);
        return false;
    }
    *out = v;
    return true;
}

inline bool webhal_unsigned64(PyObject *obj, const char *name, unsigned long long *out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "argument %s: %S is not a uint64", name, obj);
        return false;
    }
    *out = v;
    return true;
}

inline bool webhal_float(PyObject *obj, const char *name, double *out) {
    double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "argument %s: expected a number, not %s", name,
                     Py_TYPE(obj)->tp_name);
        return false;
    }
    *out = v;
    return true;
}

// float16 bits of a double, rounded to nearest even (a float16 Param is passed as its bits).
inline uint16_t webhal_float16_bits(double d) {
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        man |= 0x800000;
        int shift = 14 - e;
        uint32_t half = man >> shift, rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13), rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) half++;
    return (uint16_t)(sign | half);
}

// RuntimeError("Halide Runtime Error: <code>"), as Halide's; the runtime's message is a note
// of the exception (Python 3.11+), shown with its traceback.
inline PyObject *webhal_failed(int code) {
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *exc = PyObject_CallFunction(
        PyExc_RuntimeError, "N", PyUnicode_FromFormat("Halide Runtime Error: %d", code));
    if (exc == nullptr) return nullptr;
    if (webhal_pyext_last_error[0]) {
        PyObject *r = PyObject_CallMethod(exc, "add_note", "s", webhal_pyext_last_error);
        if (r == nullptr) PyErr_Clear();
        Py_XDECREF(r);
    }
    PyErr_SetObject(PyExc_RuntimeError, exc);
    Py_DECREF(exc);
#else
    PyErr_Format(PyExc_RuntimeError, "Halide Runtime Error: %d", code);
#endif
    return nullptr;
}

}  // namespace
#endif  // WEBHAL_PYTHON_EXTENSION_SUPPORT
"""

_MODULE = r"""
#ifndef HALIDE_PYTHON_EXTENSION_OMIT_MODULE_DEFINITION
#ifndef HALIDE_PYTHON_EXTENSION_MODULE_NAME
#define HALIDE_PYTHON_EXTENSION_MODULE_NAME {name}
#endif
#define WEBHAL_PYEXT_STRING2(x) #x
#define WEBHAL_PYEXT_STRING(x) WEBHAL_PYEXT_STRING2(x)
#define WEBHAL_PYEXT_INIT2(x) PyInit_##x
#define WEBHAL_PYEXT_INIT(x) WEBHAL_PYEXT_INIT2(x)
#ifndef HALIDE_PYTHON_EXTENSION_FUNCTIONS
#define HALIDE_PYTHON_EXTENSION_FUNCTIONS X({name})
#endif

extern "C" char webhal_pyext_last_error[1024];
char webhal_pyext_last_error[1024];

// The pipeline's runtime reports a failed check here (overriding the default, which prints);
// the call that failed raises it.
extern "C" void halide_error(void *user_context, const char *message) {{
    (void)user_context;
    if (strncmp(message, "Error: ", 7) == 0) message += 7;  // the exception says it already
    strncpy(webhal_pyext_last_error, message, sizeof(webhal_pyext_last_error) - 1);
    webhal_pyext_last_error[sizeof(webhal_pyext_last_error) - 1] = 0;
    size_t n = strlen(webhal_pyext_last_error);
    while (n > 0 && webhal_pyext_last_error[n - 1] == '\n') webhal_pyext_last_error[--n] = 0;
}}

#define X(f) namespace Halide::PythonExtensions {{ \
    PyObject *f(PyObject *module, PyObject *args, PyObject *kwargs); }}
HALIDE_PYTHON_EXTENSION_FUNCTIONS
#undef X

static PyMethodDef webhal_pyext_methods[] = {{
#define X(f) {{#f, (PyCFunction)(void (*)(void))Halide::PythonExtensions::f, \
              METH_VARARGS | METH_KEYWORDS, "Run pipeline " #f " (webhal)."}},
    HALIDE_PYTHON_EXTENSION_FUNCTIONS
#undef X
    {{nullptr, nullptr, 0, nullptr}}}};

static struct PyModuleDef webhal_pyext_module = {{
    PyModuleDef_HEAD_INIT, WEBHAL_PYEXT_STRING(HALIDE_PYTHON_EXTENSION_MODULE_NAME),
    "Pipelines compiled by webhal.", -1, webhal_pyext_methods,
    nullptr, nullptr, nullptr, nullptr}};

extern "C" PyMODINIT_FUNC WEBHAL_PYEXT_INIT(HALIDE_PYTHON_EXTENSION_MODULE_NAME)(void) {{
    return PyModule_Create(&webhal_pyext_module);
}}
#endif  // HALIDE_PYTHON_EXTENSION_OMIT_MODULE_DEFINITION
"""


def python_extension_source(name: str, arguments) -> str:
    """The `.py.cpp` of pipeline `name` whose entry takes `arguments` (Argument records)."""
    out = [f"/* Generated by webhal: a Python extension module calling pipeline {name}. */\n",
           _INCLUDES, pipeline_header(name, arguments), _SUPPORT, _function(name, arguments),
           _MODULE.format(name=name)]
    return "".join(out)


def _function(name: str, arguments) -> str:
    kw = ", ".join(f'"{a.name}"' for a in arguments)
    n = len(arguments)
    lines = ["namespace Halide::PythonExtensions {",
             f"PyObject *{name}(PyObject *module, PyObject *args, PyObject *kwargs) {{",
             "    (void)module;",
             f"    static const char *kwlist[] = {{{kw}, nullptr}};",
             f"    PyObject *py[{n}];",
             f'    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "{"O" * n}", (char **)kwlist'
             + "".join(f", &py[{i}]" for i in range(n)) + ")) return nullptr;"]
    call = []
    for i, a in enumerate(arguments):
        v = f"a{i}"
        if a.is_buffer:
            lines.append(f"    WebhalPyBuffer {v};")
            lines.append(f'    if (!{v}.unpack(py[{i}], {"true" if a.is_output else "false"}, '
                         f'"{a.name}", {a.dimensions})) return nullptr;')
            call.append(f"&{v}.buf")
            continue
        t = a.type
        key = (t.code.value, t.bits)
        ctype = c_parameter(a).rsplit(" ", 1)[0]
        if key in _SCALARS:
            c, lo, hi = _SCALARS[key]
            lines += [f"    long long {v}_;",
                      f'    if (!webhal_integer(py[{i}], "{a.name}", "{t}", {lo}LL, {hi}ULL, '
                      f"&{v}_)) return nullptr;",
                      f"    {c} {v} = ({c}){v}_;"]
        elif key == ("int", 64):
            lines += [f"    long long {v};",
                      f'    if (!webhal_integer(py[{i}], "{a.name}", "int64", '
                      f"-9223372036854775807LL - 1, 9223372036854775807ULL, &{v})) "
                      "return nullptr;"]
        elif key == ("uint", 64):
            lines += [f"    unsigned long long {v};",
                      f'    if (!webhal_unsigned64(py[{i}], "{a.name}", &{v})) return nullptr;']
        elif key == ("uint", 1):
            lines += [f"    int {v}_ = PyObject_IsTrue(py[{i}]);",
                      f"    if ({v}_ < 0) return nullptr;",
                      f"    bool {v} = {v}_ != 0;"]
        else:  # floats; float16 is passed as its bits
            lines += [f"    double {v}_;",
                      f'    if (!webhal_float(py[{i}], "{a.name}", &{v}_)) return nullptr;',
                      f"    {ctype} {v} = " + (f"webhal_float16_bits({v}_);" if t.bits == 16
                                                else f"({ctype}){v}_;")]
        call.append(v)
    lines += ["    webhal_pyext_last_error[0] = 0;",
              "    int result;",
              "    Py_BEGIN_ALLOW_THREADS",
              f"    result = ::{name}({', '.join(call)});",
              "    Py_END_ALLOW_THREADS",
              "    if (result != 0) return webhal_failed(result);",
              "    Py_RETURN_NONE;",
              "}",
              "}  // namespace Halide::PythonExtensions\n"]
    return "\n".join(lines) + "\n"
