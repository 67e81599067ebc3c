/* SPDX-License-Identifier: MIT */
/*
 * lowtrace/tracef.h - markers: part of lowtrace/tracepoint.h, which
 * includes it, not to be included on its own (it stops the build if it
 * is).  Include <lowtrace/tracepoint.h>.
 *
 * Markers: lt_tracef("frame %u late by %lld us (%s)", id, late, name)
 * anywhere, with no definition elsewhere.  Each call site is an event of
 * its own, provider "lt_tracef", named "FILE:LINE" (so -e 'lt_tracef:*'
 * or -e 'lt_tracef:src/net.c:*' select them), log level LT_DEBUG, with
 * one field per argument (arg0, arg1, ...) typed by the compiler: an
 * integer of the argument's size and sign, a float or double, a string
 * (char *, const char *: copied, at most LT_STRING_MAX bytes), or a
 * pointer (a 64-bit hexadecimal integer).  The format is a string
 * literal; it goes into the trace's metadata with the fields, and the
 * reader formats the text (`lowtrace view`): nothing is formatted and
 * nothing allocated on the tracing path, which is an LT_EVENT's (the
 * inline sequence for 4 to 16 bytes of integers and floats).
 *
 * Conversions: d i u o x X c with the length modifiers hh h l ll j z t,
 * f F e E g G, s, p, and %%; flags, width and precision as digits.  Not
 * supported: %n, %a, %m, long double (L), wide characters and strings
 * (%lc, %ls), '*' widths.  At most 10 arguments.
 *
 * Checked by the compiler, in C and C++, with GCC and clang, at every
 * optimisation level, at no cost at run time: every conversion and
 * their number against the arguments (an error: "lt_tracef: a
 * conversion that is not supported", "... not one argument per
 * conversion", "... the format is not a string literal"), the
 * arguments against the format (the printf format attribute: -Wformat,
 * in -Wall), a type the field kinds cannot hold (long double, a struct:
 * an error).  In C the check reads the first 32 '%' of the format with
 * GCC, its first 256 characters with clang (LT__TF_GRAMMAR below); the
 * rest of a longer format is left to the registry, which checks each
 * marker again as its object loads: a marker with an unsupported
 * conversion, a count of arguments that differs, or an argument of the
 * wrong kind for its conversion (%p needs a void *, %s a string) is
 * reported on stderr and stays disabled.
 */
#ifndef LOWTRACE_TRACEF_H
#define LOWTRACE_TRACEF_H

#ifndef LOWTRACE_TRACEPOINT_H
#error "lowtrace/tracef.h is part of lowtrace/tracepoint.h: include <lowtrace/tracepoint.h>"
#endif

/* the fields() of every marker's event: says what its descriptor is */
__attribute__((unused)) static const struct lt_field_desc *lt__marker_tag(void)
{
	static const struct lt_field_desc lt__t[] = {
		{ "", LT_FT_MARKER, 0, 0, 0, 0, NULL },
		{ NULL, 0, 0, 0, 0, 0, NULL }
	};
	return lt__t;
}

/* printf's checks of the arguments against the format, never called */
__attribute__((unused, format(printf, 1, 2))) static inline void
lt__tf_check(const char *fmt, ...)
{
	(void)fmt;
}

/* an argument's kind: 0 pointer, 1 integer, 2 float, 3 string, -1 none */
#ifdef __cplusplus
extern "C++" {
namespace lt__cxx
{
template <typename T> constexpr int tf_kind()
{
	return is_string<T>()		 ? 3 :
	       is_float<T>()		 ? 2 :
	       is_int<T>()		 ? 1 :
	       std::is_pointer<T>::value ? 0 :
					   -1;
}
inline void tf_put(struct lt__writer *w, const char *s)
{
	lt__put_string(w, s);
}
inline void tf_put(struct lt__writer *w, char *s)
{
	lt__put_string(w, s);
}
template <typename T> inline void tf_put(struct lt__writer *w, T *p)
{
	uint64_t u = (uint64_t)(uintptr_t)p;
	lt__put(w, &u, 8);
}
template <typename T>
inline typename std::enable_if<!std::is_pointer<T>::value>::type
tf_put(struct lt__writer *w, T v)
{
	lt__put(w, &v, sizeof(v));
}

/* the format's conversions from f[i], counted from n; -1 at one that is
 * not supported (the grammar of src/runtime/format/marker.c's lt_marker_next()) */
constexpr int tf_flags(const char *f, int i)
{
	return (f[i] == '-' || f[i] == '+' || f[i] == ' ' || f[i] == '#' ||
		f[i] == '0' || f[i] == '\'') ?
		       tf_flags(f, i + 1) :
		       i;
}
constexpr int tf_digits(const char *f, int i)
{
	return (f[i] >= '0' && f[i] <= '9') ? tf_digits(f, i + 1) : i;
}
constexpr int tf_prec(const char *f, int i)
{
	return f[i] == '.' ? tf_digits(f, i + 1) : i;
}
constexpr int tf_len(const char *f, int i)
{
	return ((f[i] == 'h' && f[i + 1] == 'h') ||
		(f[i] == 'l' && f[i + 1] == 'l')) ?
		       i + 2 :
	       (f[i] == 'h' || f[i] == 'l' || f[i] == 'j' || f[i] == 'z' ||
		f[i] == 't') ?
		       i + 1 :
		       i;
}
/* the conversion at f[i]; m where its length modifier began (none: i) */
constexpr bool tf_conv(const char *f, int m, int i)
{
	return f[i] == 'd' || f[i] == 'i' || f[i] == 'u' || f[i] == 'o' ||
	       f[i] == 'x' || f[i] == 'X' || f[i] == 'f' || f[i] == 'F' ||
	       f[i] == 'e' || f[i] == 'E' || f[i] == 'g' || f[i] == 'G' ||
	       ((f[i] == 's' || f[i] == 'c' || f[i] == 'p') && m == i);
}
constexpr int tf_count(const char *f, int i, int n);
constexpr int tf_spec(const char *f, int m, int i, int n)
{
	return tf_conv(f, m, i) ? tf_count(f, i + 1, n + 1) : -1;
}
constexpr int tf_at(const char *f, int m, int n)
{
	return tf_spec(f, m, tf_len(f, m), n);
}
constexpr int tf_count(const char *f, int i, int n)
{
	return !f[i] ? n :
	       f[i] != '%' ?
		       tf_count(f, i + 1, n) :
	       f[i + 1] == '%' ?
		       tf_count(f, i + 2, n) :
		       tf_at(f, tf_prec(f, tf_digits(f, tf_flags(f, i + 1))),
			     n);
}
} // namespace lt__cxx

/*
 * A marker registers on its own, as its object loads, by the dynamic
 * initialisation of a static member of a class template instantiated
 * for a class local to the call site: g++ drops the section attribute
 * of a static local in a template or an inline function (it has vague
 * linkage) or stops at a section type conflict, so C++'s markers are
 * not in the lt_events section.
 */
namespace lt__cxx
{
template <typename Site> struct tf_reg {
	tf_reg()
	{
		lt_probe_register_range(Site::range(), Site::range() + 1);
		lt_session_autostart();
	}
	~tf_reg()
	{
		lt_probe_unregister_range(Site::range(), Site::range() + 1);
	}
	static tf_reg instance;
};
template <typename Site> tf_reg<Site> tf_reg<Site>::instance;
} // namespace lt__cxx
}
#define LT__TF_REGISTER(d)                                              \
	struct lt__tf_site {                                            \
		static struct lt_event_desc *const *range()             \
		{                                                       \
			static struct lt_event_desc *const lt__r[1] = { \
				&d.ev                                   \
			};                                              \
			return lt__r;                                   \
		}                                                       \
	};                                                              \
	(void)&lt__cxx::tf_reg<lt__tf_site>::instance;
#define LT__TF_KIND(x) (lt__cxx::tf_kind<LT__TYPE(x)>())
#define LT__TF_SIGNED_ARG(x) LT__SIGNED(x)
#define LT__TF_PUT(x) lt__cxx::tf_put(&lt__w, (x))
/* the enabled path in a function of its own, an inline lambda: clang
 * checks the asm goto of the inline sequence against the labels of
 * every other one in the function, which C++ forbids jumping past
 * initialisations */
#define LT__TF_BODY(...) [&]() __attribute__((always_inline)){ __VA_ARGS__ }();
#define LT__TF_COUNT_CHECK(fmt, n)                                      \
	static_assert(lt__cxx::tf_count(fmt, 0, 0) == (n),              \
		      "lt_tracef: a conversion that is not supported, " \
		      "or not one argument per conversion");
#else
#define LT__TF_INTS(v)                                                         \
_Bool:                                                                         \
	v, char : v,                                                           \
		  signed char : v,                                             \
				unsigned char : v,                             \
						short : v,                     \
							unsigned short : v,    \
									 int   \
	    : v,                                                               \
	      unsigned : v,                                                    \
			 long : v,                                             \
				unsigned long : v,                             \
						long long : v,                 \
							    unsigned long long \
	    : v
#define LT__TF_KIND(x)                                                     \
	_Generic((x), char * : 3, const char * : 3, float : 2, double : 2, \
		 LT__TF_INTS(1), default : 0)
#define LT__TF_SIGNED_ARG(x)                                         \
	_Generic((x), signed char : 1, short : 1, int : 1, long : 1, \
		 long long : 1, char                                 \
		 : (char)-1 < 0, float : 1, double : 1, default : 0)
#define LT__TF_PUT_FN(name, T)                                                \
	__attribute__((unused)) static inline void name(struct lt__writer *w, \
							T v)                  \
	{                                                                     \
		lt__put(w, &v, sizeof(v));                                    \
	}
LT__TF_PUT_FN(lt__tf_put_b, _Bool)
LT__TF_PUT_FN(lt__tf_put_c, char)
LT__TF_PUT_FN(lt__tf_put_sc, signed char)
LT__TF_PUT_FN(lt__tf_put_uc, unsigned char)
LT__TF_PUT_FN(lt__tf_put_h, short)
LT__TF_PUT_FN(lt__tf_put_uh, unsigned short)
LT__TF_PUT_FN(lt__tf_put_i, int)
LT__TF_PUT_FN(lt__tf_put_u, unsigned)
LT__TF_PUT_FN(lt__tf_put_l, long)
LT__TF_PUT_FN(lt__tf_put_ul, unsigned long)
LT__TF_PUT_FN(lt__tf_put_ll, long long)
LT__TF_PUT_FN(lt__tf_put_ull, unsigned long long)
LT__TF_PUT_FN(lt__tf_put_f, float)
LT__TF_PUT_FN(lt__tf_put_d, double)
__attribute__((unused)) static inline void lt__tf_put_str(struct lt__writer *w,
							  const char *s)
{
	lt__put_string(w, s);
}
/* any other pointer; anything else (long double, a struct) fails here */
__attribute__((unused)) static inline void
lt__tf_put_ptr(struct lt__writer *w, const volatile void *p)
{
	uint64_t u = (uint64_t)(uintptr_t)p;
	lt__put(w, &u, 8);
}
#define LT__TF_PUT(x) \
	_Generic((x), char * : lt__tf_put_str, const char * : lt__tf_put_str, \
		 float : lt__tf_put_f, double : lt__tf_put_d,                 \
		 _Bool : lt__tf_put_b, char : lt__tf_put_c,                   \
		 signed char : lt__tf_put_sc, unsigned char : lt__tf_put_uc,  \
		 short : lt__tf_put_h, unsigned short : lt__tf_put_uh,        \
		 int : lt__tf_put_i, unsigned : lt__tf_put_u,                 \
		 long : lt__tf_put_l, unsigned long : lt__tf_put_ul,          \
		 long long : lt__tf_put_ll,                                   \
		 unsigned long long : lt__tf_put_ull,                         \
		 default : lt__tf_put_ptr)(&lt__w, (x))
/*
 * C's compile-time check of a marker's format: the grammar of
 * src/runtime/format/marker.c's lt_marker_next() as integer constant expressions
 * on the literal (enumerators' values), which both compilers fold at
 * every optimisation level and which cost nothing at run time.  GCC
 * folds __builtin_strspn() and __builtin_strcspn() on a literal but not
 * a character of it: the format is read one '%' at a time, 32 of them
 * ("%%" and conversions).  Clang folds a character of a literal but not
 * strspn(): the format is read one character at a time by a state
 * machine, 256 of them.  What lies beyond is left to the registry's
 * check as the object loads.  tests/test_marker.c checks it against
 * lt_marker_next() on a table of formats; tests/test_tracef.sh compiles
 * markers with both compilers.
 */
#define LT__TF_AT(f, i) (&(f)[(i) < lt__tf_len ? (i) : lt__tf_len - 1])
#ifdef __clang__
/* X(f, hi, lo, and the hex digits of the position before) at positions
 * 0x00 to 0xff */
/* clang-format off */
#define LT__TF_B16(X, fm, hi, ph) \
	X(fm, hi, 0, ph, f) X(fm, hi, 1, hi, 0) X(fm, hi, 2, hi, 1) \
	X(fm, hi, 3, hi, 2) X(fm, hi, 4, hi, 3) X(fm, hi, 5, hi, 4) \
	X(fm, hi, 6, hi, 5) X(fm, hi, 7, hi, 6) X(fm, hi, 8, hi, 7) \
	X(fm, hi, 9, hi, 8) X(fm, hi, a, hi, 9) X(fm, hi, b, hi, a) \
	X(fm, hi, c, hi, b) X(fm, hi, d, hi, c) X(fm, hi, e, hi, d) \
	X(fm, hi, f, hi, e)
#define LT__TF_B256(X, fm) \
	LT__TF_B16(X, fm, 0, _) LT__TF_B16(X, fm, 1, 0) LT__TF_B16(X, fm, 2, 1) \
	LT__TF_B16(X, fm, 3, 2) LT__TF_B16(X, fm, 4, 3) LT__TF_B16(X, fm, 5, 4) \
	LT__TF_B16(X, fm, 6, 5) LT__TF_B16(X, fm, 7, 6) LT__TF_B16(X, fm, 8, 7) \
	LT__TF_B16(X, fm, 9, 8) LT__TF_B16(X, fm, a, 9) LT__TF_B16(X, fm, b, a) \
	LT__TF_B16(X, fm, c, b) LT__TF_B16(X, fm, d, c) LT__TF_B16(X, fm, e, d) \
	LT__TF_B16(X, fm, f, e)
/* clang-format on */
/* the class of a character: 0 the end, 1 '%', 2 a flag, 3 '0', 4 another
 * digit, 5 '.', 6 'h', 7 'l', 8 j z t, 9 a numeric conversion, 10 s c p */
#define LT__TF_CLASS(c)                                                        \
	((c) == 0   ? 0 :                                                      \
	 (c) == '%' ? 1 :                                                      \
	 (c) == '-' || (c) == '+' || (c) == ' ' || (c) == '#' || (c) == '\'' ? \
		      2 :                                                      \
	 (c) == '0'				? 3 :                          \
	 (c) >= '1' && (c) <= '9'		? 4 :                          \
	 (c) == '.'				? 5 :                          \
	 (c) == 'h'				? 6 :                          \
	 (c) == 'l'				? 7 :                          \
	 (c) == 'j' || (c) == 'z' || (c) == 't' ? 8 :                          \
	 (c) == 'd' || (c) == 'i' || (c) == 'u' || (c) == 'o' || (c) == 'x' || \
			 (c) == 'X' || (c) == 'f' || (c) == 'F' ||             \
			 (c) == 'e' || (c) == 'E' || (c) == 'g' ||             \
			 (c) == 'G' ?                                          \
						  9 :                          \
	 (c) == 's' || (c) == 'c' || (c) == 'p' ? 10 :                         \
						  11)
/* the state after a character of class c: 16 * conversions + where in
 * one (0 text, 1 after '%', 2 flags, 3 width, 4 precision, 5 'h', 6 'l',
 * 7 after the length, 8 the end), -1 past one that is not supported */
#define LT__TF_P(s) ((s)&15)
#define LT__TF_B(s) ((s) & ~15)
#define LT__TF_NEXT(s, c)                                                   \
	((s) < 0				    ? -1 :                  \
	 LT__TF_P(s) == 8			    ? (s) :                 \
	 LT__TF_P(s) == 0			    ? ((c) == 1 ? (s) + 1 : \
						       (c) == 0 ? (s) + 8 : \
								  (s)) :    \
	 LT__TF_P(s) == 1 && (c) == 1		    ? (s)-1 :               \
	 LT__TF_P(s) <= 2 && ((c) == 2 || (c) == 3) ? LT__TF_B(s) + 2 :     \
	 LT__TF_P(s) <= 3 && ((c) == 3 || (c) == 4) ? LT__TF_B(s) + 3 :     \
	 LT__TF_P(s) == 4 && ((c) == 3 || (c) == 4) ? (s) :                 \
	 LT__TF_P(s) <= 3 && (c) == 5		    ? LT__TF_B(s) + 4 :     \
	 LT__TF_P(s) <= 4 && (c) >= 6 && (c) <= 8   ? LT__TF_B(s) + (c)-1 : \
	 (LT__TF_P(s) == 5 && (c) == 6) || (LT__TF_P(s) == 6 && (c) == 7) ? \
						    LT__TF_B(s) + 7 :       \
	 (c) == 9 || (LT__TF_P(s) <= 4 && (c) == 10) ? LT__TF_B(s) + 16 :   \
						       -1)
/* the character and its class as enumerators of their own: each is
 * named many times by the next */
#define LT__TF_POS(f, hi, lo, ph, pl)                      \
	lt__tf_c##hi##lo = *LT__TF_AT(f, 0x##hi##lo),      \
	lt__tf_k##hi##lo = LT__TF_CLASS(lt__tf_c##hi##lo), \
	lt__tf_s##hi##lo = LT__TF_NEXT(lt__tf_s##ph##pl, lt__tf_k##hi##lo),
/* lt__tf_bad: not supported; lt__tf_convs: conversions, if lt__tf_done */
#define LT__TF_GRAMMAR(f)                                       \
	lt__tf_len = sizeof(f), lt__tf_s_f = 0,                 \
	LT__TF_B256(LT__TF_POS, f) lt__tf_bad = lt__tf_sff < 0, \
	lt__tf_done = LT__TF_P(lt__tf_sff) == 8,                \
	lt__tf_convs = lt__tf_sff >> 4
/* folding a character of a literal is an extension -pedantic names */
#define LT__TF_FOLD_BEGIN                \
	_Pragma("clang diagnostic push") \
		_Pragma("clang diagnostic ignored \"-Wgnu-folding-constant\"")
#define LT__TF_FOLD_END _Pragma("clang diagnostic pop")
#else
#define LT__TF_FOLD_BEGIN
#define LT__TF_FOLD_END
/* X(f, j, j + 1): the conversions (or "%%") 0 to 31 */
/* clang-format off */
#define LT__TF_STEPS(X, fm) \
	X(fm, 0, 1) X(fm, 1, 2) X(fm, 2, 3) X(fm, 3, 4) X(fm, 4, 5) X(fm, 5, 6) \
	X(fm, 6, 7) X(fm, 7, 8) X(fm, 8, 9) X(fm, 9, 10) X(fm, 10, 11) X(fm, 11, 12) \
	X(fm, 12, 13) X(fm, 13, 14) X(fm, 14, 15) X(fm, 15, 16) X(fm, 16, 17) X(fm, 17, 18) \
	X(fm, 18, 19) X(fm, 19, 20) X(fm, 20, 21) X(fm, 21, 22) X(fm, 22, 23) X(fm, 23, 24) \
	X(fm, 24, 25) X(fm, 25, 26) X(fm, 26, 27) X(fm, 27, 28) X(fm, 28, 29) X(fm, 29, 30) \
	X(fm, 30, 31) X(fm, 31, 32)
/* clang-format on */
#define LT__TF_IN(f, i, set) (__builtin_strspn(LT__TF_AT(f, i), set) != 0)
#define LT__TF_SPN(f, i, set) __builtin_strspn(LT__TF_AT(f, i), set)
/* from p_j in the text: the next '%' at q_j; e_j: the end; d_j: "%%"; a
 * conversion's flags end at a_j, width at b_j, precision at c_j, length
 * modifier (l_j letters) at c_j + l_j, then the conversion */
#define LT__TF_CONV(f, j, k)                                                  \
	lt__tf_q##j = lt__tf_p##j +                                           \
		      __builtin_strcspn(LT__TF_AT(f, lt__tf_p##j), "%"),      \
	lt__tf_e##j = !LT__TF_IN(f, lt__tf_q##j, "%"),                        \
	lt__tf_d##j = LT__TF_IN(f, lt__tf_q##j + 1, "%"),                     \
	lt__tf_a##j =                                                         \
		lt__tf_q##j + 1 + LT__TF_SPN(f, lt__tf_q##j + 1, "-+ #0'"),   \
	lt__tf_b##j = lt__tf_a##j + LT__TF_SPN(f, lt__tf_a##j, "0123456789"), \
	lt__tf_c##j =                                                         \
		lt__tf_b##j +                                                 \
		(LT__TF_IN(f, lt__tf_b##j, ".") ?                             \
			 1 + LT__TF_SPN(f, lt__tf_b##j + 1, "0123456789") :   \
			 0),                                                  \
	lt__tf_l##j = LT__TF_SPN(f, lt__tf_c##j, "hljzt"),                    \
	lt__tf_ok##j =                                                        \
		(lt__tf_l##j == 0 &&                                          \
		 LT__TF_IN(f, lt__tf_c##j, "diuoxXfFeEgGscp")) ||             \
		((lt__tf_l##j == 1 ||                                         \
		  (lt__tf_l##j == 2 &&                                        \
		   (!__builtin_strncmp(LT__TF_AT(f, lt__tf_c##j), "hh", 2) || \
		    !__builtin_strncmp(LT__TF_AT(f, lt__tf_c##j), "ll",       \
				       2)))) &&                               \
		 LT__TF_IN(f, lt__tf_c##j + lt__tf_l##j, "diuoxXfFeEgG")),    \
	lt__tf_p##k = lt__tf_e##j ? lt__tf_q##j :                             \
		      lt__tf_d##j ? lt__tf_q##j + 2 :                         \
				    lt__tf_c##j + lt__tf_l##j + 1,            \
	lt__tf_x##k = lt__tf_x##j ||                                          \
		      (!lt__tf_e##j && !lt__tf_d##j && !lt__tf_ok##j),        \
	lt__tf_n##k = lt__tf_n##j + (!lt__tf_e##j && !lt__tf_d##j),
/* lt__tf_bad: not supported; lt__tf_convs: conversions, if lt__tf_done */
#define LT__TF_GRAMMAR(f)                                                    \
	lt__tf_len = sizeof(f), lt__tf_p0 = 0, lt__tf_x0 = 0, lt__tf_n0 = 0, \
	LT__TF_STEPS(LT__TF_CONV, f) lt__tf_bad = lt__tf_x32,                \
	lt__tf_done = !__builtin_strlen(LT__TF_AT(f, lt__tf_p32)),           \
	lt__tf_convs = lt__tf_n32
#endif
#define LT__TF_COUNT_CHECK(fmt, n)                                       \
	_Static_assert(__builtin_constant_p(fmt),                        \
		       "lt_tracef: the format is not a string literal"); \
	LT__TF_FOLD_BEGIN enum { LT__TF_GRAMMAR(fmt) };                  \
	LT__TF_FOLD_END                                                  \
	_Static_assert(!lt__tf_bad,                                      \
		       "lt_tracef: a conversion that is not supported"); \
	_Static_assert(!lt__tf_done || lt__tf_convs == (n),              \
		       "lt_tracef: not one argument per conversion");
/* in the object's lt_events section, as LT_EVENT's descriptors */
#define LT__TF_REGISTER(d)                                               \
	static struct lt_event_desc *const lt__tf_p LT__SECTION = &d.ev; \
	(void)lt__tf_p;
#define LT__TF_BODY(...)    \
	{                   \
		__VA_ARGS__ \
	}
#endif

/* argument i's field description, serialisation, and fixed size */
#define LT__TF_DESC(i, x)                                                   \
	{ "arg" #i,                                                         \
	  LT__TF_KIND(x) == 3 ? LT_FT_STRING :                              \
	  LT__TF_KIND(x) == 2 ? LT_FT_FLOAT :                               \
				LT_FT_INT,                                  \
	  (uint8_t)(LT__TF_KIND(x) == 3 ? 1 :                               \
		    LT__TF_KIND(x) == 0 ? 8 :                               \
					  sizeof(x)),                       \
	  LT__TF_KIND(x) == 1 ? LT__TF_SIGNED_ARG(x) : LT__TF_KIND(x) == 2, \
	  (uint8_t)(LT__TF_KIND(x) == 0 ? 16 : 10),                         \
	  0,                                                                \
	  NULL },
#define LT__TF_WRITE(i, x)                                                 \
	LT__STATIC_ASSERT(LT__TF_KIND(x) >= 0,                             \
			  "lt_tracef: argument " #i " is not an integer, " \
			  "a float or double, a string or a pointer");     \
	LT__TF_PUT(x);
#define LT__TF_SIZE(i, x)                              \
	+(LT__TF_KIND(x) == 3 ? (size_t)LT_EVENT_MAX : \
	  LT__TF_KIND(x) == 0 ? (size_t)8 :            \
				sizeof(x))

#define LT__TF_NAME __FILE__ ":" LT__STR(__LINE__)

/* One call site: its descriptor, then the event as LT_EVENT's probe
 * writes it (fixed payloads of 4 to 16 bytes by the inline sequence). */
#define LT__TF_SITE(fmt, n, descs, writes, size, call)                         \
	do {                                                                   \
		static const struct lt_field_desc lt__tf_f[] = { descs{        \
			NULL, 0, 0, 0, 0, 0, NULL } };                         \
		static struct lt_marker_desc lt__tf_d = {                      \
			{ 0, LT__LAYOUT, LT_DEBUG, "lt_tracef", LT__TF_NAME,   \
			  "lt_tracef:" LT__TF_NAME, lt__marker_tag, 0, NULL,   \
			  NULL },                                              \
			"" fmt "",                                             \
			lt__tf_f                                               \
		};                                                             \
		LT__TF_REGISTER(lt__tf_d)                                      \
		LT__TF_COUNT_CHECK(fmt, n)                                     \
		if (0)                                                         \
			lt__tf_check call;                                     \
		if (__builtin_expect(__atomic_load_n(&lt__tf_d.ev.enabled,     \
						     __ATOMIC_RELAXED),        \
				     0))                                       \
			LT__TF_BODY(                                           \
				if ((0 size) >= 4 && (0 size) <= 16) {         \
					LT__EMIT_FIXED(&lt__tf_d.ev, (0 size), \
						       writes);                \
				} else {                                       \
					char lt__buf[(0 size) < LT_EVENT_MAX ? \
							     (0 size) + 1 :    \
							     LT_EVENT_MAX +    \
								     1];       \
					struct lt__writer lt__w = {            \
						lt__buf, 0,                    \
						(uint32_t)sizeof(lt__buf) - 1, \
						0                              \
					};                                     \
					/* no argument: no byte written,   \
					 * none read, but gcc cannot tell */   \
					if ((0 size) == 0)                     \
						lt__buf[0] = 0;                \
					writes lt_probe_emit(                  \
						&lt__tf_d.ev, lt__buf,         \
						lt__w.off, lt__w.overflow);    \
				})                                             \
	} while (0)

#define LT__TF_EACH_1(op, a0) op(0, a0)
#define LT__TF_EACH_2(op, a0, a1) op(0, a0) op(1, a1)
#define LT__TF_EACH_3(op, a0, a1, a2) op(0, a0) op(1, a1) op(2, a2)
#define LT__TF_EACH_4(op, a0, a1, a2, a3) \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3)
#define LT__TF_EACH_5(op, a0, a1, a2, a3, a4) \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4)
#define LT__TF_EACH_6(op, a0, a1, a2, a3, a4, a5) \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4) op(5, a5)
#define LT__TF_EACH_7(op, a0, a1, a2, a3, a4, a5, a6) \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4) op(5, a5) op(6, a6)
#define LT__TF_EACH_8(op, a0, a1, a2, a3, a4, a5, a6, a7)                     \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4) op(5, a5) op(6, a6) \
		op(7, a7)
#define LT__TF_EACH_9(op, a0, a1, a2, a3, a4, a5, a6, a7, a8)                 \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4) op(5, a5) op(6, a6) \
		op(7, a7) op(8, a8)
#define LT__TF_EACH_10(op, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)            \
	op(0, a0) op(1, a1) op(2, a2) op(3, a3) op(4, a4) op(5, a5) op(6, a6) \
		op(7, a7) op(8, a8) op(9, a9)
/* lt_tracef with n arguments after the format */
#define LT__TF_N(n, fmt, ...)                                          \
	LT__TF_SITE(fmt, n, LT__TF_EACH_##n(LT__TF_DESC, __VA_ARGS__), \
		    LT__TF_EACH_##n(LT__TF_WRITE, __VA_ARGS__),        \
		    LT__TF_EACH_##n(LT__TF_SIZE, __VA_ARGS__),         \
		    (fmt, __VA_ARGS__))
#define LT__TRACEF_1(fmt) LT__TF_SITE(fmt, 0, , , , (fmt))
#define LT__TRACEF_2(fmt, ...) LT__TF_N(1, fmt, __VA_ARGS__)
#define LT__TRACEF_3(fmt, ...) LT__TF_N(2, fmt, __VA_ARGS__)
#define LT__TRACEF_4(fmt, ...) LT__TF_N(3, fmt, __VA_ARGS__)
#define LT__TRACEF_5(fmt, ...) LT__TF_N(4, fmt, __VA_ARGS__)
#define LT__TRACEF_6(fmt, ...) LT__TF_N(5, fmt, __VA_ARGS__)
#define LT__TRACEF_7(fmt, ...) LT__TF_N(6, fmt, __VA_ARGS__)
#define LT__TRACEF_8(fmt, ...) LT__TF_N(7, fmt, __VA_ARGS__)
#define LT__TRACEF_9(fmt, ...) LT__TF_N(8, fmt, __VA_ARGS__)
#define LT__TRACEF_10(fmt, ...) LT__TF_N(9, fmt, __VA_ARGS__)
#define LT__TRACEF_11(fmt, ...) LT__TF_N(10, fmt, __VA_ARGS__)

/* A marker: lt_tracef(FORMAT, args...), FORMAT a string literal. */
#define lt_tracef(...) LT__CAT(LT__TRACEF_, LT__NARGS(__VA_ARGS__))(__VA_ARGS__)

#endif
