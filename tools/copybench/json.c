// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - the strict JSON parser of json.h: recursive descent over the
 * RFC 8259 grammar, one function per production.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "lib/cb_json_writer.h"	/* cb_utf8_seq() */
#include "util.h"

struct cb_json_parser {
	const char *s;
	size_t len, pos;
	char *err;
	size_t errlen;
	int failed;
};

static __printf(2, 3) int cb_jp_fail(struct cb_json_parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return -1;
	p->failed = 1;
	n = snprintf(p->err, p->errlen, "column %zu: ", p->pos + 1);
	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void cb_jp_space(struct cb_json_parser *p)
{
	while (p->pos < p->len && strchr(" \t\n\r", p->s[p->pos]) && p->s[p->pos])
		p->pos++;
}

static int cb_jp_peek(const struct cb_json_parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static int cb_jp_literal(struct cb_json_parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return cb_jp_fail(p, "invalid literal (expected %s)", word);
	p->pos += n;
	return 0;
}

static int cb_jp_value(struct cb_json_parser *p, struct cb_json *v, unsigned int depth);

static int cb_jp_digits(struct cb_json_parser *p)
{
	size_t start = p->pos;

	while (cb_jp_peek(p) >= '0' && cb_jp_peek(p) <= '9')
		p->pos++;
	return p->pos > start ? 0 : cb_jp_fail(p, "expected a digit");
}

static int cb_jp_number(struct cb_json_parser *p, struct cb_json *v)
{
	size_t start = p->pos;
	int integer = 1, neg = 0;
	char buf[64], *end;

	if (cb_jp_peek(p) == '-') {
		neg = 1;
		p->pos++;
	}
	if (cb_jp_peek(p) == '0') {
		p->pos++;
		if (cb_jp_peek(p) >= '0' && cb_jp_peek(p) <= '9')
			return cb_jp_fail(p, "leading zeros are not allowed in numbers");
	} else if (cb_jp_digits(p)) {
		return -1;
	}
	if (cb_jp_peek(p) == '.') {
		integer = 0;
		p->pos++;
		if (cb_jp_digits(p))
			return -1;
	}
	if (cb_jp_peek(p) == 'e' || cb_jp_peek(p) == 'E') {
		integer = 0;
		p->pos++;
		if (cb_jp_peek(p) == '+' || cb_jp_peek(p) == '-')
			p->pos++;
		if (cb_jp_digits(p))
			return -1;
	}
	if (p->pos - start >= sizeof(buf))
		return cb_jp_fail(p, "number too long");
	memcpy(buf, p->s + start, p->pos - start);
	buf[p->pos - start] = '\0';
	v->type = CB_JSON_NUMBER;
	errno = 0;
	v->num = strtod(buf, &end);
	if (errno == ERANGE && (v->num > 1 || v->num < -1))
		return cb_jp_fail(p, "number out of range");
	if (!integer)
		return 0;
	errno = 0;
	if (neg) {
		v->i = strtoll(buf, &end, 10);
		v->is_int = !errno;
		if (v->i == 0 && v->is_int) {
			v->is_uint = 1;		/* -0 */
			v->u = 0;
		}
	} else {
		v->u = strtoull(buf, &end, 10);
		v->is_uint = !errno;
		v->is_int = v->is_uint && v->u <= (unsigned long long)__LONG_LONG_MAX__;
		v->i = (long long)v->u;
	}
	return 0;
}

static int cb_jp_hex4(struct cb_json_parser *p, unsigned int *cp)
{
	unsigned int i, c;

	*cp = 0;
	for (i = 0; i < 4; i++) {
		c = (unsigned int)cb_jp_peek(p);
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			return cb_jp_fail(p, "expected 4 hex digits after \\u");
		*cp = *cp << 4 | c;
		p->pos++;
	}
	return 0;
}

static void cb_utf8_put(struct cb_str *b, unsigned int cp)
{
	char u[4];

	if (cp < 0x80) {
		u[0] = (char)cp;
		cb_str_addn(b, u, 1);
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		cb_str_addn(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		cb_str_addn(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		cb_str_addn(b, u, 4);
	}
}

/* \uXXXX, with a surrogate pair as one code point; U+0000 is refused. */
static int cb_jp_unicode(struct cb_json_parser *p, struct cb_str *b)
{
	unsigned int cp, lo;

	if (cb_jp_hex4(p, &cp))
		return -1;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return cb_jp_fail(p, "unpaired low surrogate \\u%04x", cp);
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
			return cb_jp_fail(p, "unpaired high surrogate \\u%04x", cp);
		p->pos += 2;
		if (cb_jp_hex4(p, &lo))
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return cb_jp_fail(p, "invalid low surrogate \\u%04x", lo);
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!cp)
		return cb_jp_fail(p, "\\u0000 is not allowed in a string");
	cb_utf8_put(b, cp);
	return 0;
}

static int cb_jp_string(struct cb_json_parser *p, char **out)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	struct cb_str b = { 0 };
	const char *e;
	size_t n;
	int c;

	p->pos++;	/* the opening quote */
	cb_str_add(&b, "");
	for (;;) {
		c = cb_jp_peek(p);
		if (c < 0) {
			cb_jp_fail(p, "unterminated string");
			goto fail;
		}
		if (c == '"') {
			p->pos++;
			break;
		}
		if (c < 0x20) {
			cb_jp_fail(p, "control character 0x%02x in a string", c);
			goto fail;
		}
		if (c == '\\') {
			p->pos++;
			c = cb_jp_peek(p);
			if (c == 'u') {
				p->pos++;
				if (cb_jp_unicode(p, &b))
					goto fail;
				continue;
			}
			e = c > 0 ? strchr(esc_in, c) : NULL;
			if (!e) {
				cb_jp_fail(p, "invalid escape in a string");
				goto fail;
			}
			cb_str_addn(&b, &esc_out[e - esc_in], 1);
			p->pos++;
			continue;
		}
		n = cb_utf8_seq((const unsigned char *)p->s + p->pos, p->len - p->pos);
		if (!n) {
			cb_jp_fail(p, "invalid UTF-8 in a string");
			goto fail;
		}
		cb_str_addn(&b, p->s + p->pos, n);
		p->pos += n;
	}
	*out = b.s;
	return 0;
fail:
	cb_str_free(&b);
	return -1;
}

static int cb_jp_array(struct cb_json_parser *p, struct cb_json *v, unsigned int depth)
{
	size_t cap = 0;

	v->type = CB_JSON_ARRAY;
	p->pos++;
	cb_jp_space(p);
	if (cb_jp_peek(p) == ']') {
		p->pos++;
		return 0;
	}
	for (;;) {
		if (v->n == cap)
			v->items = cb_realloc(v->items, cap = cap ? 2 * cap : 4, sizeof(*v->items));
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		v->n++;		/* counted first: freed with the array on failure */
		if (cb_jp_value(p, &v->items[v->n - 1], depth + 1))
			return -1;
		cb_jp_space(p);
		if (cb_jp_peek(p) == ']') {
			p->pos++;
			return 0;
		}
		if (cb_jp_peek(p) != ',')
			return cb_jp_fail(p, "expected ',' or ']' after an array element");
		p->pos++;
	}
}

static int cb_jp_object(struct cb_json_parser *p, struct cb_json *v, unsigned int depth)
{
	struct cb_json_member *m;
	size_t cap = 0, i;

	v->type = CB_JSON_OBJECT;
	p->pos++;
	cb_jp_space(p);
	if (cb_jp_peek(p) == '}') {
		p->pos++;
		return 0;
	}
	for (;;) {
		cb_jp_space(p);
		if (cb_jp_peek(p) != '"')
			return cb_jp_fail(p, "expected a string key");
		if (v->n == cap)
			v->members = cb_realloc(v->members, cap = cap ? 2 * cap : 8,
						sizeof(*v->members));
		m = &v->members[v->n];
		memset(m, 0, sizeof(*m));
		if (cb_jp_string(p, &m->key))
			return -1;
		v->n++;
		for (i = 0; i + 1 < v->n; i++)
			if (!strcmp(v->members[i].key, m->key))
				return cb_jp_fail(p, "duplicate key \"%s\"", m->key);
		cb_jp_space(p);
		if (cb_jp_peek(p) != ':')
			return cb_jp_fail(p, "expected ':' after key \"%s\"", m->key);
		p->pos++;
		if (cb_jp_value(p, &m->value, depth + 1))
			return -1;
		cb_jp_space(p);
		if (cb_jp_peek(p) == '}') {
			p->pos++;
			return 0;
		}
		if (cb_jp_peek(p) != ',')
			return cb_jp_fail(p, "expected ',' or '}' after an object member");
		p->pos++;
	}
}

static int cb_jp_value(struct cb_json_parser *p, struct cb_json *v, unsigned int depth)
{
	int c;

	if (depth > CB_JSON_DEPTH)
		return cb_jp_fail(p, "nested deeper than %d", CB_JSON_DEPTH);
	cb_jp_space(p);
	c = cb_jp_peek(p);
	switch (c) {
	case '{':
		return cb_jp_object(p, v, depth);
	case '[':
		return cb_jp_array(p, v, depth);
	case '"':
		v->type = CB_JSON_STRING;
		return cb_jp_string(p, &v->str);
	case 't':
		v->type = CB_JSON_BOOL;
		v->boolean = 1;
		return cb_jp_literal(p, "true");
	case 'f':
		v->type = CB_JSON_BOOL;
		return cb_jp_literal(p, "false");
	case 'n':
		v->type = CB_JSON_NULL;
		return cb_jp_literal(p, "null");
	case -1:
		return cb_jp_fail(p, "unexpected end of input, expected a value");
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return cb_jp_number(p, v);
		return cb_jp_fail(p, "expected a value, got '%c'", c >= 0x20 && c < 0x7f ? c : '?');
	}
}

int cb_json_parse(const char *text, size_t len, struct cb_json *out, char *err, size_t errlen)
{
	struct cb_json_parser p = { .s = text, .len = len, .err = err, .errlen = errlen };

	memset(out, 0, sizeof(*out));
	if (!cb_jp_value(&p, out, 0)) {
		cb_jp_space(&p);
		if (p.pos == p.len)
			return 0;
		cb_jp_fail(&p, "unexpected text after the value");
	}
	cb_json_free(out);
	return -1;
}

void cb_json_free(struct cb_json *v)
{
	size_t i;

	if (v->type == CB_JSON_ARRAY)
		for (i = 0; i < v->n; i++)
			cb_json_free(&v->items[i]);
	if (v->type == CB_JSON_OBJECT) {
		for (i = 0; i < v->n; i++) {
			free(v->members[i].key);
			cb_json_free(&v->members[i].value);
		}
	}
	free(v->items);
	free(v->members);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

const struct cb_json *cb_json_get(const struct cb_json *v, const char *key)
{
	size_t i;

	if (!v || v->type != CB_JSON_OBJECT)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->members[i].key, key))
			return &v->members[i].value;
	return NULL;
}

int cb_json_parse_object(const char *text, size_t len, const char *what, struct cb_json *out,
			 char *why, size_t whylen)
{
	char err[CB_ERR_MAX / 2];

	if (cb_json_parse(text, len, out, err, sizeof(err))) {
		snprintf(why, whylen, "not JSON: %s", err);
		return -1;
	}
	if (out->type == CB_JSON_OBJECT)
		return 0;
	snprintf(why, whylen, "expected %s object, got %s", what, cb_json_type_name(out->type));
	cb_json_free(out);
	return -1;
}

const char *cb_json_type_name(enum cb_json_type t)
{
	static const char *const names[] = {
		[CB_JSON_NULL] = "null", [CB_JSON_BOOL] = "boolean",
		[CB_JSON_NUMBER] = "number", [CB_JSON_STRING] = "string",
		[CB_JSON_ARRAY] = "array", [CB_JSON_OBJECT] = "object",
	};

	return t < ARRAY_SIZE(names) ? names[t] : "?";
}
