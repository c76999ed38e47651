/* The hot path of reading a run file for evaluation, in C: evaluation.core.runfiles'
 * ``_fast_scores`` without a Python object per field.
 *
 * It reads only what it can read exactly as the Python reader does, and answers None for
 * anything else, so that the Python reader (and, for a bad file, the validating parser with its
 * line-numbered errors) decides: one home for every rule stays in Python, this is only faster.
 *
 * What it reads: ASCII text whose lines end in \n, \r\n or \r and whose fields are separated by
 * spaces or tabs; blank lines and lines whose first field starts with '#' are skipped (as
 * trec_eval skips them). Every other line has exactly ``width`` fields, or more when ``loose``
 * (a TREC run, whose fields after the tag trec_eval ignores). One run tag in the whole file.
 * Per topic, the first row of a document wins; its score is a plain finite decimal number as
 * Python's float() reads it, without '_' (``pooling.core.formats.rows.trec_score``).
 *
 * Input is untrusted: every read is bounded by the string's length, nothing is written into a
 * fixed buffer without a length check, and a field too long for one falls back to Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WIDTH 8
#define SCORE_BUFFER 64 /* longer score fields are left to the Python reader */

typedef struct {
    const char *start;
    Py_ssize_t length;
} Field;

/* What each byte is to the reader. UNUSUAL bytes are those the Python reader treats
 * differently from this one (other line breaks, other white space, NUL, non-ASCII): their
 * presence anywhere sends the whole file to Python. */
enum { PLAIN, SEPARATOR, LINE_END, UNUSUAL };
static unsigned char byte_class[256];

static void byte_classes(void) {
    for (int c = 0; c < 256; c++) {
        byte_class[c] = (c >= 0x80 || c < 0x20) ? UNUSUAL : PLAIN;
    }
    byte_class[' '] = byte_class['\t'] = SEPARATOR;
    byte_class['\n'] = byte_class['\r'] = LINE_END;
}

/* The score of a field, or -1 when the Python reader must judge it. */
static int field_score(const Field *field, double *score) {
    char buffer[SCORE_BUFFER];
    char *end = NULL;
    if (field->length >= SCORE_BUFFER || memchr(field->start, '_', field->length) != NULL) {
        return -1;
    }
    /* Only a sign, digits, a point and an exponent: what both readers take alike (Python's
     * float() rejects hexadecimal, strtod takes it; "nan" and "inf" are not finite anyway). */
    memcpy(buffer, field->start, field->length);
    buffer[field->length] = '\0';
    if (field->length == 0 || strspn(buffer, "0123456789+-.eE") < (size_t)field->length) {
        return -1;
    }
    /* Correctly rounded, as Python's own reader is (run_scores checks the decimal point). */
    *score = strtod(buffer, &end);
    if (end != buffer + field->length || !isfinite(*score)) {
        return -1;
    }
    return 0;
}

static int same_field(const Field *a, const Field *b) {
    return a->length == b->length && memcmp(a->start, b->start, a->length) == 0;
}

static PyObject *run_scores(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *text;
    int width, topic_at, doc_at, score_at, tag_at, loose;
    if (!PyArg_ParseTuple(args, "Uiiiiip", &text, &width, &topic_at, &doc_at, &score_at, &tag_at,
                          &loose)) {
        return NULL;
    }
    if (width < 1 || width > MAX_WIDTH || topic_at < 0 || topic_at >= width || doc_at < 0 ||
        doc_at >= width || score_at < 0 || score_at >= width || tag_at < 0 || tag_at >= width) {
        PyErr_SetString(PyExc_ValueError, "column out of range");
        return NULL;
    }
    const struct lconv *numbers = localeconv();
    if (!PyUnicode_IS_ASCII(text) || strcmp(numbers->decimal_point, ".") != 0) {
        Py_RETURN_NONE; /* strtod would read another decimal point than Python's float() */
    }
    const unsigned char *data = (const unsigned char *)PyUnicode_DATA(text);
    Py_ssize_t size = PyUnicode_GET_LENGTH(text);

    PyObject *scores = PyDict_New();
    if (scores == NULL) {
        return NULL;
    }
    PyObject *docs = NULL; /* borrowed from scores */
    Field topic = {NULL, -1};
    Field tag = {NULL, -1};
    Field fields[MAX_WIDTH];
    Py_ssize_t at = 0;
    while (at < size) {
        /* One line: its fields (the first ``width`` kept), then its end (\n, \r\n or \r). */
        int count = 0;
        for (;;) {
            while (at < size && byte_class[data[at]] == SEPARATOR) {
                at++;
            }
            if (at == size || byte_class[data[at]] == LINE_END) {
                break;
            }
            Py_ssize_t field_start = at;
            while (at < size && byte_class[data[at]] == PLAIN) {
                at++;
            }
            if (at < size && byte_class[data[at]] == UNUSUAL) {
                goto python_decides;
            }
            if (count < width) {
                fields[count].start = (const char *)data + field_start;
                fields[count].length = at - field_start;
            }
            if (count <= width) {
                count++; /* past width + 1 the count no longer matters */
            }
        }
        if (at < size) {
            at += (data[at] == '\r' && at + 1 < size && data[at + 1] == '\n') ? 2 : 1;
        }
        if (count == 0 || fields[0].start[0] == '#') {
            continue;
        }
        if (count != width && !(loose && count > width)) {
            goto python_decides;
        }
        if (tag.length < 0) {
            tag = fields[tag_at];
        } else if (!same_field(&tag, &fields[tag_at])) {
            goto python_decides;
        }
        if (!same_field(&topic, &fields[topic_at])) {
            topic = fields[topic_at];
            PyObject *name = PyUnicode_DecodeASCII(topic.start, topic.length, NULL);
            if (name == NULL) {
                goto failed;
            }
            PyObject *fresh = PyDict_New();
            if (fresh == NULL) {
                Py_DECREF(name);
                goto failed;
            }
            docs = PyDict_SetDefault(scores, name, fresh); /* borrowed */
            Py_DECREF(name);
            Py_DECREF(fresh);
            if (docs == NULL) {
                goto failed;
            }
        }
        /* ASCII already checked: the characters are copied, not decoded again. */
        PyObject *doc = PyUnicode_New(fields[doc_at].length, 127);
        if (doc == NULL) {
            goto failed;
        }
        memcpy(PyUnicode_DATA(doc), fields[doc_at].start, fields[doc_at].length);
        int seen = PyDict_Contains(docs, doc);
        if (seen < 0) {
            Py_DECREF(doc);
            goto failed;
        }
        if (!seen) { /* the first row of a document wins; later ones are not even read */
            double value;
            if (field_score(&fields[score_at], &value) < 0) {
                Py_DECREF(doc);
                goto python_decides;
            }
            PyObject *number = PyFloat_FromDouble(value);
            if (number == NULL || PyDict_SetItem(docs, doc, number) < 0) {
                Py_XDECREF(number);
                Py_DECREF(doc);
                goto failed;
            }
            Py_DECREF(number);
        }
        Py_DECREF(doc);
    }

    PyObject *tag_text = tag.length < 0 ? PyUnicode_FromString("")
                                        : PyUnicode_DecodeASCII(tag.start, tag.length, NULL);
    if (tag_text == NULL) {
        goto failed;
    }
    PyObject *found = PyTuple_Pack(2, tag_text, scores);
    Py_DECREF(tag_text);
    Py_DECREF(scores);
    return found;

python_decides:
    Py_DECREF(scores);
    Py_RETURN_NONE;
failed:
    Py_DECREF(scores);
    return NULL;
}

static PyMethodDef methods[] = {
    {"run_scores", run_scores, METH_VARARGS,
     "run_scores(text, width, topic, doc, score, tag, loose) -> (tag, {topic: {doc: score}}) "
     "or None when the Python reader must decide."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_run_scores", "The hot path of reading a run file, in C.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__run_scores(void) {
    byte_classes();
    return PyModule_Create(&module);
}
