// SPDX-License-Identifier: GPL-2.0
/*
 * cb_options.c - option tables to getopt_long(), the fields and --help
 * (cb_options.h).
 */
#include <ctype.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cb_options.h"

static int cb_option_name_index(const struct cb_option *o, const char *v)
{
	unsigned int i;

	for (i = 0; i < o->nnames; i++)
		if (!strcmp(o->names[i], v))
			return (int)i;
	return -1;
}

/*
 * The option after o of the tables (the first when o is NULL), *t the
 * table it is in; NULL after the last.
 */
static const struct cb_option *cb_option_next(const struct cb_option *const **t,
					      const struct cb_option *o)
{
	if (o) {
		if ((++o)->type != CB_OPTT_END)
			return o;
		(*t)++;
	}
	for (; **t; (*t)++)
		if ((**t)->type != CB_OPTT_END)
			return **t;
	return NULL;
}

static const struct cb_option *cb_option_by_key(const struct cb_option *const *tables, int key,
						size_t *index)
{
	const struct cb_option *const *t;
	const struct cb_option *o;
	size_t i = 0;

	for (t = tables, o = cb_option_next(&t, NULL); o; o = cb_option_next(&t, o)) {
		if ((o->short_name ? o->short_name : 256 + (int)i) == key) {
			if (index)
				*index = i;
			return o;
		}
		i++;
	}
	return NULL;
}

/* "--a, --b, ..." for messages. */
static void cb_options_list(struct cb_str *b, const struct cb_option *const *tables)
{
	const struct cb_option *const *t;
	const struct cb_option *o;

	for (t = tables, o = cb_option_next(&t, NULL); o; o = cb_option_next(&t, o))
		cb_str_printf(b, "%s--%s", b->len ? ", " : "", o->name);
}

static int cb_option_refuse(const struct cb_option *o, const char *v, struct cb_error *e)
{
	struct cb_str list = { 0 };
	unsigned int i;

	switch (o->type) {
	case CB_OPTT_NAME:
	case CB_OPTT_CHOICE:
		for (i = 0; i < o->nnames; i++)
			cb_str_printf(&list, "%s%s", i ? ", " : "", o->names[i]);
		break;
	case CB_OPTT_UINT:
		cb_str_printf(&list, "%s%llu..%llu%s%s", o->unit ? "" : "a decimal integer, ",
			      o->min, o->max, o->unit ? " " : "", o->unit ? o->unit : "");
		break;
	case CB_OPTT_DOUBLE:
		if (o->open)
			cb_str_printf(&list, "%s, %g %s %s %s %g", o->unit, o->dmin,
				      o->open & CB_LO_OPEN ? "<" : "<=", o->sym,
				      o->open & CB_HI_OPEN ? "<" : "<=", o->dmax);
		else
			cb_str_printf(&list, "%s, %g..%g", o->unit, o->dmin, o->dmax);
		break;
	default:
		cb_str_printf(&list, "%s%lld..%lld%s%s", o->unit ? "" : "a decimal integer, ",
			      o->smin, o->smax, o->unit ? " " : "", o->unit ? o->unit : "");
		break;
	}
	cb_fail(e, CB_EXIT_USAGE, "invalid --%s '%s' (accepted: %s)", o->name, v, list.s);
	cb_str_free(&list);
	return -1;
}

/* The value v (NULL: none) of option o into its field. */
static int cb_option_store(const struct cb_option *o, void *ctx, const char *v,
			   struct cb_error *e)
{
	void *field = (char *)ctx + o->off;
	unsigned long long u;
	long long s;
	char *end;
	double d;
	int i;

	switch (o->type) {
	case CB_OPTT_FLAG:
		*(int *)field = 1;
		return 0;
	case CB_OPTT_STRING:
		*(const char **)field = v;
		return 0;
	case CB_OPTT_UINT:
		if (cb_parse_u64(v, o->min, o->max, &u))
			return cb_option_refuse(o, v, e);
		if (o->size == sizeof(uint32_t))
			*(uint32_t *)field = (uint32_t)u;
		else
			*(uint64_t *)field = u;
		return 0;
	case CB_OPTT_INT:
		if (cb_parse_i64(v, o->smin, o->smax, &s))
			return cb_option_refuse(o, v, e);
		*(long long *)field = s;
		return 0;
	case CB_OPTT_DOUBLE:
		d = strtod(v, &end);
		/* NaN fails every comparison, so it is refused too. */
		if (end == v || *end || !(o->open & CB_LO_OPEN ? d > o->dmin : d >= o->dmin) ||
		    !(o->open & CB_HI_OPEN ? d < o->dmax : d <= o->dmax))
			return cb_option_refuse(o, v, e);
		*(double *)field = d * o->scale;
		return 0;
	case CB_OPTT_NAME:
	case CB_OPTT_CHOICE:
		i = cb_option_name_index(o, v);
		if (i < 0)
			return cb_option_refuse(o, v, e);
		if (o->type == CB_OPTT_NAME)
			*(const char **)field = o->names[i];
		else
			*(int *)field = i;
		return 0;
	case CB_OPTT_CALLBACK:
		return o->cb(field, v, e);
	case CB_OPTT_END:
		break;
	}
	return cb_fail(e, CB_EXIT_USAGE, "internal: option --%s of no type", o->name);
}

/* getopt_long()'s tables: longs[i] is the i-th option, its val the key. */
static struct option *cb_options_getopt(const struct cb_option *const *tables,
					struct cb_str *shorts)
{
	const struct cb_option *const *t;
	const struct cb_option *o;
	struct option *longs;
	size_t n = 0, i = 0;

	for (t = tables, o = cb_option_next(&t, NULL); o; o = cb_option_next(&t, o))
		n++;
	if (n > CB_OPTIONS_MAX)
		abort();	/* a table beyond struct cb_given: a bug here */
	longs = cb_calloc(n + 1, sizeof(*longs));
	cb_str_add(shorts, ":");	/* report a missing value as ':' */
	for (t = tables, o = cb_option_next(&t, NULL); o; o = cb_option_next(&t, o)) {
		longs[i].name = o->name;
		longs[i].has_arg = o->has_arg;
		longs[i].val = o->short_name ? o->short_name : 256 + (int)i;
		if (o->short_name)
			cb_str_printf(shorts, "%c%s", o->short_name,
				      o->has_arg == required_argument ? ":" :
				      o->has_arg == optional_argument ? "::" : "");
		i++;
	}
	return longs;
}

/* The message for getopt's ':' (missing value) or '?' (unknown or unexpected). */
static void cb_options_refused(int argc, char **argv, int key, int idx,
			       const struct cb_option *const *tables, struct cb_error *e)
{
	const struct cb_option *o = NULL;
	struct cb_str list = { 0 };

	/* The word refused: getopt may have moved operands before it. */
	if (optind > 1 && optind <= argc && argv[optind - 1][0] == '-')
		idx = optind - 1;
	if (optopt)
		o = cb_option_by_key(tables, optopt, NULL);
	if (key == ':' && o && idx < argc &&
	    (strncmp(argv[idx], "--", 2) || strcmp(argv[idx] + 2, o->name))) {
		/* "-c", "-jc" or "--chu": named as typed, then in full */
		cb_fail(e, CB_EXIT_USAGE, "option '%s' (--%s) needs a value: %s (see --help)",
			argv[idx], o->name, o->arg ? o->arg : "");
	} else if (key == ':' && o) {
		cb_fail(e, CB_EXIT_USAGE, "option '--%s' needs a value: %s (see --help)",
			o->name, o->arg ? o->arg : "");
	} else if (o && strchr(argv[idx], '=')) {
		cb_fail(e, CB_EXIT_USAGE, "option '--%s' takes no value (got '%s')",
			o->name, argv[idx]);
	} else {
		cb_options_list(&list, tables);
		cb_fail(e, CB_EXIT_USAGE, "unknown option '%s' (accepted: %s)",
			idx < argc ? argv[idx] : "?", list.s);
	}
	cb_str_free(&list);
}

/*
 * "--duration", "-t", "--": a word meant as an option, not as a value; a
 * number ("-5", "-0.1", "-inf") is not one.
 */
static int cb_looks_like_option(const char *s)
{
	char *end;

	if (s[0] != '-' || !(isalpha((unsigned char)s[1]) || s[1] == '-'))
		return 0;
	(void)strtod(s, &end);
	return end == s || *end;
}

/*
 * getopt_long() takes the word after an option that needs a value as that
 * value, whatever it is: "--output --json" would write a file named
 * "--json", "--source --duration 0.1" read one. Refuse an option-looking
 * value in its own word; a value that really starts with '-' can still be
 * given as --output=VALUE. "-" alone and numbers such as "-5" are not
 * option-looking: their option judges them.
 */
static int cb_option_check_word(const struct cb_option *o, int argc, char **argv,
				struct cb_error *e)
{
	const char *arg = o->arg ? o->arg : "VALUE";

	if (o->has_arg != required_argument || optind < 2 || optind > argc ||
	    optarg != argv[optind - 1] || !cb_looks_like_option(optarg))
		return 0;
	return cb_fail(e, CB_EXIT_USAGE,
		       "option '%s' needs a value, but '%s' follows it (a %s that starts with '-': --%s=%s)",
		       argv[optind - 2], optarg, arg, o->name, arg);
}

int cb_options_parse(int argc, char **argv, const struct cb_option *const *tables, void *ctx,
		     struct cb_given *given, struct cb_error *e)
{
	const struct cb_option *o;
	struct cb_str shorts = { 0 };
	struct option *longs = cb_options_getopt(tables, &shorts);
	int key, ret = -1, idx;
	size_t i;

	if (given)
		memset(given, 0, sizeof(*given));
	opterr = 0;
	optind = 1;
	for (;;) {
		idx = optind;
		optopt = 0;
		key = getopt_long(argc, argv, shorts.s, longs, NULL);
		if (key == -1) {
			ret = optind;
			break;
		}
		if (key == ':' || key == '?') {
			cb_options_refused(argc, argv, key, idx, tables, e);
			break;
		}
		o = cb_option_by_key(tables, key, &i);
		if (cb_option_check_word(o, argc, argv, e) || cb_option_store(o, ctx, optarg, e))
			break;
		if (given)
			given->bits[i / 64] |= 1ULL << (i % 64);
	}
	free(longs);
	cb_str_free(&shorts);
	return ret;
}

int cb_option_given(const struct cb_option *const *tables, const struct cb_given *given,
		    const char *name)
{
	const struct cb_option *const *t;
	const struct cb_option *o;
	size_t i = 0;

	for (t = tables, o = cb_option_next(&t, NULL); o; o = cb_option_next(&t, o)) {
		if (!strcmp(o->name, name))
			return (int)((given->bits[i / 64] >> (i % 64)) & 1);
		i++;
	}
	abort();	/* no such option: a bug in the caller */
}

void cb_option_mark(const struct cb_option *const *tables, struct cb_given *given, size_t off)
{
	const struct cb_option *const *t;
	const struct cb_option *o;
	size_t i = 0;

	for (t = tables, o = cb_option_next(&t, NULL); o; o = cb_option_next(&t, o)) {
		if (o->off == off) {
			given->bits[i / 64] |= 1ULL << (i % 64);
			return;
		}
		i++;
	}
	abort();	/* no option has this field: a bug in the caller */
}

void cb_option_put_string(const void *field, struct cb_str *b)
{
	const char *s = *(const char *const *)field;

	if (s)
		cb_str_add(b, s);
}

/* A double as the shortest decimal that strtod() reads back to it. */
static void cb_option_put_double(double d, struct cb_str *b)
{
	char buf[40];
	int prec;

	for (prec = 6; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	cb_str_printf(b, "%.*g", prec, d);
}

/* The value of option o in ctx into b; 0 when it has none to write. */
static int cb_option_value(const struct cb_option *o, const void *ctx, struct cb_str *b)
{
	const void *field = (const char *)ctx + o->off;
	const char *s;

	switch (o->type) {
	case CB_OPTT_FLAG:
		return *(const int *)field ? 1 : 0;
	case CB_OPTT_STRING:
	case CB_OPTT_NAME:
		s = *(const char *const *)field;
		if (!s)
			return 0;
		cb_str_add(b, s);
		return 1;
	case CB_OPTT_UINT:
		cb_str_printf(b, "%llu", o->size == sizeof(uint32_t) ?
			      (unsigned long long)*(const uint32_t *)field :
			      (unsigned long long)*(const uint64_t *)field);
		return 1;
	case CB_OPTT_INT:
		cb_str_printf(b, "%lld", *(const long long *)field);
		return 1;
	case CB_OPTT_DOUBLE:
		cb_option_put_double(*(const double *)field / o->scale, b);
		return 1;
	case CB_OPTT_CHOICE:
		cb_str_add(b, o->names[*(const int *)field]);
		return 1;
	case CB_OPTT_CALLBACK:
		if (!o->put)
			abort();	/* a callback option without put: a bug in its table */
		cb_str_add(b, "");
		o->put(field, b);
		return 1;
	case CB_OPTT_END:
		break;
	}
	abort();
}

void cb_options_words(const struct cb_option *const *tables, const struct cb_given *given,
		      const void *ctx, void (*add)(void *arg, const char *word), void *arg)
{
	const struct cb_option *const *t;
	const struct cb_option *o;
	struct cb_str v = { 0 }, w = { 0 };
	size_t i = 0;

	for (t = tables, o = cb_option_next(&t, NULL); o; o = cb_option_next(&t, o), i++) {
		if (!((given->bits[i / 64] >> (i % 64)) & 1))
			continue;
		v.len = 0;
		if (v.s)
			v.s[0] = '\0';
		if (!cb_option_value(o, ctx, &v))
			continue;
		w.len = 0;
		if (o->type == CB_OPTT_FLAG || (o->has_arg == optional_argument && !*v.s)) {
			cb_str_printf(&w, "--%s", o->name);
			add(arg, w.s);
		} else if (o->short_name && v.s[0] != '-') {
			cb_str_printf(&w, "-%c", o->short_name);
			add(arg, w.s);
			add(arg, v.s);
		} else {
			cb_str_printf(&w, "--%s=%s", o->name, v.s);
			add(arg, w.s);
		}
	}
	cb_str_free(&v);
	cb_str_free(&w);
}

void cb_options_help(FILE *f, const struct cb_option *const *tables,
		     enum cb_help_layout layout)
{
	static const char beside[] = "                          ", below[] = "        ";
	const char *h, *nl, *open, *close, *first, *next;
	const struct cb_option *const *t;
	const struct cb_option *o;
	char head[64];

	for (t = tables, o = cb_option_next(&t, NULL); o; o = cb_option_next(&t, o)) {
		open = o->has_arg == optional_argument ? "[=" : o->arg ? " " : "";
		close = o->has_arg == optional_argument ? "]" : "";
		if (o->short_name)
			snprintf(head, sizeof(head), "-%c, --%s%s%s%s", o->short_name, o->name,
				 open, o->arg ? o->arg : "", close);
		else
			snprintf(head, sizeof(head), "    --%s%s%s%s", o->name, open,
				 o->arg ? o->arg : "", close);
		if (layout == CB_HELP_BELOW) {
			fprintf(f, "  %s\n", head);
			first = below;
			next = below;
		} else {
			fprintf(f, "  %-24s", head);
			if (strlen(head) >= 24)
				fprintf(f, "\n  %-24s", "");
			first = "";
			next = beside;
		}
		for (h = o->help; h; h = nl ? nl + 1 : NULL) {
			nl = strchr(h, '\n');
			fprintf(f, "%s%.*s\n", h == o->help ? first : next,
				nl ? (int)(nl - h) : (int)strlen(h), h);
		}
	}
}
