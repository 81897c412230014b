/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_options.h - the option engine of the copybench command and readers:
 * each option written once, as perf's OPT_* tables write them. An entry
 * names the option, where its value goes (a field of the command's context
 * struct), how it is parsed and checked, and its --help text. One table
 * drives getopt_long(), the value's checks, --help and the "unknown
 * option" message, so they cannot disagree.
 */
#ifndef CB_OPTIONS_H
#define CB_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/cb_util.h"

/* A compile-time check in an expression: 0, or an error when c holds. */
#define CB_BUILD_BUG_ON_ZERO(c)	((int)(sizeof(struct { int: (-!!(c)); })))

enum cb_option_type {
	CB_OPTT_END,
	CB_OPTT_FLAG,		/* int: 1 when given */
	CB_OPTT_STRING,		/* const char *: the value as typed */
	CB_OPTT_UINT,		/* an unsigned integer field: decimal, in min..max */
	CB_OPTT_INT,		/* long long: decimal with an optional '-', in smin..smax */
	CB_OPTT_NAME,		/* const char *: one of names[] */
	CB_OPTT_CHOICE,		/* int: the index of the value in names[] */
	CB_OPTT_DOUBLE,		/* double: a decimal number in dmin..dmax, times scale */
	CB_OPTT_CALLBACK,	/* cb(field, value, e): anything else */
};

/* Parses value into the field (value NULL: an optional value left out). */
typedef int (*cb_option_cb)(void *field, const char *value, struct cb_error *e);
/* Writes the field as the value its cb parses back to it ("": none, for an optional one). */
typedef void (*cb_option_put)(const void *field, struct cb_str *b);

/*
 * struct cb_option - one option. The field is at off in the context struct
 * given to cb_options_parse(); short_name is 0 or its letter; help may hold
 * several lines separated by '\n'. A refused value gets "invalid --NAME
 * 'VALUE' (accepted: ...)": the names, "MIN..MAX UNIT" with a unit, else "a
 * decimal integer, MIN..MAX", a double "WHAT, MIN..MAX" or, with a bound
 * left open, "WHAT, MIN < SYM <= MAX" (a callback writes its own). Write entries
 * with the CB_OPT_* macros below; a table ends with CB_OPT_END().
 */
struct cb_option {
	enum cb_option_type type;
	const char *name;
	int short_name;
	int has_arg;		/* getopt_long's no_, required_, optional_argument */
	size_t off, size;	/* the field */
	const char *arg;	/* the value's name in --help */
	const char *help;
	unsigned long long min, max;	/* CB_OPTT_UINT */
	long long smin, smax;		/* CB_OPTT_INT */
	const char *const *names;	/* CB_OPTT_NAME, CB_OPTT_CHOICE */
	unsigned int nnames;
	const char *unit;	/* UINT, INT: "(accepted: MIN..MAX UNIT)"; DOUBLE: WHAT */
	double dmin, dmax, scale;	/* CB_OPTT_DOUBLE */
	unsigned int open;	/* CB_OPTT_DOUBLE: CB_LO_OPEN, CB_HI_OPEN */
	const char *sym;	/* CB_OPTT_DOUBLE: the value's name in MIN < SYM */
	cb_option_cb cb;
	cb_option_put put;	/* CB_OPTT_CALLBACK: the field as a value, for cb_options_words() */
};

/* A double's bounds that are not accepted themselves. */
#define CB_LO_OPEN	1u
#define CB_HI_OPEN	2u

#define CB_OPT_FIELD(T, f)	.off = offsetof(T, f), .size = sizeof(((T *)0)->f)
/* The field's type is t (a mistyped field does not compile). */
#define CB_OPT_IS(T, f, t)						\
	CB_BUILD_BUG_ON_ZERO(!__builtin_types_compatible_p(__typeof__(((T *)0)->f), t))

#define CB_OPT_FLAG(n, s, T, f, h)					\
	{ .type = CB_OPTT_FLAG + CB_OPT_IS(T, f, int), .name = (n), .short_name = (s),	\
	  .has_arg = no_argument, CB_OPT_FIELD(T, f), .help = (h) }
#define CB_OPT_STRING(n, s, T, f, a, h)					\
	{ .type = CB_OPTT_STRING + CB_OPT_IS(T, f, const char *), .name = (n),	\
	  .short_name = (s), .has_arg = required_argument, CB_OPT_FIELD(T, f),	\
	  .arg = (a), .help = (h) }
/* An unsigned field of any width, lo..hi; u: the unit of the message, or NULL. */
#define CB_OPT_UINT(n, T, f, lo, hi, u, a, h)				\
	{ .type = CB_OPTT_UINT +					\
		CB_BUILD_BUG_ON_ZERO(!((__typeof__(((T *)0)->f))-1 > 0) ||	\
				     (sizeof(((T *)0)->f) != 4 && sizeof(((T *)0)->f) != 8)),	\
	  .name = (n), .has_arg = required_argument, CB_OPT_FIELD(T, f),	\
	  .min = (lo), .max = (hi), .unit = (u), .arg = (a), .help = (h) }
#define CB_OPT_INT(n, T, f, lo, hi, u, a, h)				\
	{ .type = CB_OPTT_INT + CB_OPT_IS(T, f, long long), .name = (n),	\
	  .has_arg = required_argument, CB_OPT_FIELD(T, f), .smin = (lo),	\
	  .smax = (hi), .unit = (u), .arg = (a), .help = (h) }
#define CB_OPT_NAME(n, T, f, list, a, h)				\
	{ .type = CB_OPTT_NAME + CB_OPT_IS(T, f, const char *), .name = (n),	\
	  .has_arg = required_argument, CB_OPT_FIELD(T, f), .names = (list),	\
	  .nnames = ARRAY_SIZE(list), .arg = (a), .help = (h) }
#define CB_OPT_CHOICE(n, T, f, list, a, h)				\
	{ .type = CB_OPTT_CHOICE + CB_OPT_IS(T, f, int), .name = (n),	\
	  .has_arg = required_argument, CB_OPT_FIELD(T, f), .names = (list),	\
	  .nnames = ARRAY_SIZE(list), .arg = (a), .help = (h) }
/*
 * A double field: a decimal number in lo..hi (bounds in open left out),
 * stored times scale (1.0 / 100 for a percentage kept as a fraction);
 * wh and sy name it in the message ("a percentage", "PCT").
 */
#define CB_OPT_DOUBLE(n, T, f, lo, hi, op, scl, wh, sy, a, h)		\
	{ .type = CB_OPTT_DOUBLE + CB_OPT_IS(T, f, double), .name = (n),	\
	  .has_arg = required_argument, CB_OPT_FIELD(T, f), .dmin = (lo),	\
	  .dmax = (hi), .open = (op), .scale = (scl), .unit = (wh),	\
	  .sym = (sy), .arg = (a), .help = (h) }
/*
 * has: required_argument, optional_argument or no_argument (then fn may
 * get NULL). A callback refuses a value with its own message.
 */
#define CB_OPT_CALLBACK(n, s, T, f, has, fn, a, h)			\
	{ .type = CB_OPTT_CALLBACK, .name = (n), .short_name = (s),	\
	  .has_arg = (has), CB_OPT_FIELD(T, f), .cb = (fn), .arg = (a),	\
	  .help = (h) }
/* A callback option whose field put writes back as its value (cb_options_words()). */
#define CB_OPT_CALLBACK_PUT(n, s, T, f, has, fn, pt, a, h)		\
	{ .type = CB_OPTT_CALLBACK, .name = (n), .short_name = (s),	\
	  .has_arg = (has), CB_OPT_FIELD(T, f), .cb = (fn), .put = (pt),	\
	  .arg = (a), .help = (h) }
#define CB_OPT_END()	{ .type = CB_OPTT_END }

/* Which options were given: bit i for the i-th option of the tables. */
#define CB_OPTIONS_MAX	128
struct cb_given {
	unsigned long long bits[CB_OPTIONS_MAX / 64];
};

/*
 * cb_options_parse - parse argv[1..] with the options of every table in
 * tables (NULL-terminated), storing each value into its field of ctx, in
 * the order given. given, when not NULL, is filled. Returns the index of
 * the first operand, or -1 with e set (CB_EXIT_USAGE: unknown option,
 * missing, unexpected or refused value). A value in its own word that
 * looks like an option ("--output --json": '-' and a letter, or "--"; a
 * number such as -5 or -inf does not) is refused as missing; one that
 * starts with '-' goes after '=' (--output=-f). -h/--help is not handled
 * here: put it in a table (a callback may print it and exit at once).
 */
int cb_options_parse(int argc, char **argv, const struct cb_option *const *tables, void *ctx,
		     struct cb_given *given, struct cb_error *e);

/* Whether the option called name was given (name must be in tables). */
int cb_option_given(const struct cb_option *const *tables, const struct cb_given *given,
		    const char *name);

/*
 * cb_option_mark - mark given the option of tables whose field is at off
 * in the context struct (offsetof() of the field, so the compiler checks
 * its name); aborts when no option has that field (a bug in the caller).
 */
void cb_option_mark(const struct cb_option *const *tables, struct cb_given *given, size_t off);

/* put for a callback option whose field is a const char * (NULL: none). */
void cb_option_put_string(const void *field, struct cb_str *b);

/*
 * cb_options_words - the options of tables that given marks, their values
 * read from their fields in ctx, as the words of an argv that
 * cb_options_parse() parses back to the same fields: "--name=VALUE" (the
 * value after '=', so that one starting with '-' is not refused), "-s"
 * and "VALUE" for an option with a short name and a value that does not
 * start with '-', "--name" for a flag or an optional value left out (""),
 * in the tables' order; each word is given to add(arg, word). A callback
 * option needs its put; a string of NULL writes nothing.
 */
void cb_options_words(const struct cb_option *const *tables, const struct cb_given *given,
		      const void *ctx, void (*add)(void *arg, const char *word), void *arg);

/* How cb_options_help() lays an option and its help out. */
enum cb_help_layout {
	CB_HELP_BESIDE,		/* the help from column 27 of its line (copybench) */
	CB_HELP_BELOW,		/* the help on the lines below, indented 8 (readers) */
};

/* The option list of --help: "  -s, --name ARG" and its help, per option. */
void cb_options_help(FILE *f, const struct cb_option *const *tables,
		     enum cb_help_layout layout);

#endif /* CB_OPTIONS_H */
