/* SPDX-License-Identifier: MIT */
/*
 * lowtrace/tracepoint.h - defining and calling static tracepoints.
 *
 * A provider header defines each event once, with its argument types and
 * its fields:
 *
 *	#include <lowtrace/tracepoint.h>
 *
 *	LT_ENUM(myapp, state, LT_ENUM_VALUE("IDLE", 0) LT_ENUM_VALUE("BUSY", 1))
 *
 *	LT_EVENT(myapp, frame_done, LT_INFO,
 *		 LT_ARGS(uint32_t, id, int64_t, late_us, const char *, name),
 *		 LT_FIELDS(LT_FIELD_INT(id, id)
 *			   LT_FIELD_INT(late_us, late_us)
 *			   LT_FIELD_STRING(name, name)))
 *
 * and code calls it with lt_trace(myapp, frame_done, 7, 120, "render").
 * Any file may include the provider header; nothing has to be defined in
 * one of them only.  The call site costs one byte load and a branch not
 * taken while the event is disabled; the arguments are evaluated only
 * when it is enabled.  The compiler checks the arguments against LT_ARGS,
 * and each field's expression against its kind (an integer for
 * LT_FIELD_INT, a string for LT_FIELD_STRING, ...).  Field expressions are
 * evaluated once each per event; keep them free of side effects.
 *
 * Fields:
 *   LT_FIELD_INT(name, expr)           integer, size and sign of expr's type
 *   LT_FIELD_HEX(name, expr)           the same, displayed in hexadecimal
 *   LT_FIELD_ENUM(prov, enum, name, expr)  integer with the labels of LT_ENUM
 *   LT_FIELD_FLOAT(name, expr)         float or double
 *   LT_FIELD_STRING(name, expr)        NUL-terminated string (at most
 *                                      LT_STRING_MAX bytes are kept)
 *   LT_FIELD_ARRAY(name, ptr, count)   count integers, count a constant
 *   LT_FIELD_SEQUENCE(name, ptr, len)  len integers, len known at run time
 *   LT_FIELD_CHARS(name, ptr, count)   char array shown as text: up to
 *                                      count chars, to the first NUL
 *
 * An enabled event whose payload has a fixed size of 4 to 16 bytes (its
 * integers, enums, floats and fixed arrays) is written by a restartable
 * sequence compiled into the call site (tp_seq.h, x86_64 with glibc 2.35
 * or later): no call, about 250 bytes of cold code per call site.  Define
 * LT_NO_INLINE_SEQ before including this header to have such call sites
 * call the library instead (a nanosecond or two more per event).
 *
 * Events register themselves when the object that defines them is loaded
 * (the executable, a shared library, a library opened with dlopen) and
 * unregister when it is unloaded.  Link with -llowtrace.
 *
 * The same macros work in C (C11 with GNU extensions) and in C++11 or
 * later (g++, clang++), where a field's expression may be an enum class
 * (LT_FIELD_ENUM, LT_FIELD_INT) and a string must be a const char * or
 * char * (std::string::c_str()); an event may be defined inside a
 * namespace and called from it.
 *
 * Markers, lt_tracef(FORMAT, args...) anywhere with no definition: see
 * lowtrace/tracef.h, which this header includes.
 */
#ifndef LOWTRACE_TRACEPOINT_H
#define LOWTRACE_TRACEPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <lowtrace/types.h>
#define LT__SEQ_INTERNALS 1
#include <lowtrace/tp_seq.h>

/*
 * What the field macros ask of an expression's type, in each language's
 * own terms: C11's _Static_assert, __typeof__ and _Generic; C++'s
 * static_assert, decltype and <type_traits>.  LT__TYPE(x) is x's type as
 * a variable holding its value has it (arrays and functions decayed).
 */
#ifdef __cplusplus
#include <type_traits>

namespace lt__cxx
{
template <typename T> using decay_t = typename std::decay<T>::type;
template <typename T, bool = std::is_enum<T>::value> struct arith {
	typedef T type;
};
template <typename T> struct arith<T, true> {
	typedef typename std::underlying_type<T>::type type;
};
template <typename T> constexpr bool is_int()
{
	return std::is_integral<T>::value || std::is_enum<T>::value;
}
template <typename T> constexpr bool is_signed()
{
	return std::is_signed<typename arith<T>::type>::value;
}
template <typename T> constexpr bool is_float()
{
	return std::is_same<T, float>::value || std::is_same<T, double>::value;
}
template <typename T> constexpr bool is_string()
{
	return std::is_same<T, char *>::value ||
	       std::is_same<T, const char *>::value;
}
template <typename T> T zero()
{
	return T();
}
} // namespace lt__cxx

#define LT__TYPE(x) lt__cxx::decay_t<decltype(x)>
#define LT__STATIC_ASSERT(c, msg) static_assert(c, msg)
#define LT__SIGNED(x) (lt__cxx::is_signed<LT__TYPE(x)>())
#define LT__IS_INT(x) (lt__cxx::is_int<LT__TYPE(x)>())
#define LT__IS_FLOAT(x) (lt__cxx::is_float<LT__TYPE(x)>())
#define LT__IS_STRING(x) (lt__cxx::is_string<LT__TYPE(x)>())
#define LT__ZERO(t, n) lt__cxx::zero<t>()
#else
#define LT__TYPE(x) __typeof__(x)
#define LT__STATIC_ASSERT(c, msg) _Static_assert(c, msg)
#define LT__SIGNED(x) ((__typeof__(x))-1 < (__typeof__(x))1)
#define LT__IS_INT(x) ((__typeof__(x))1.5 == 1)
#define LT__IS_FLOAT(x)                                        \
	(__builtin_types_compatible_p(__typeof__(x), float) || \
	 __builtin_types_compatible_p(__typeof__(x), double))
#define LT__IS_STRING(x) \
	_Generic((x), char * : 1, const char * : 1, default : 0)
#define LT__ZERO(t, n) \
	(t)            \
	{              \
		0      \
	}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Serialises one event's payload on the caller's stack. */
struct lt__writer {
	char *p;
	uint32_t off, cap;
	int overflow;
};

static inline void lt__put(struct lt__writer *w, const void *v, size_t n)
{
	if (n > w->cap - w->off) {
		w->overflow = 1;
		return;
	}
	memcpy(w->p + w->off, v, n);
	w->off += (uint32_t)n;
}

static inline void lt__put_string(struct lt__writer *w, const char *s)
{
	size_t n = 0;
	if (!s)
		s = "(null)";
	while (n < LT_STRING_MAX - 1 && s[n])
		n++;
	lt__put(w, s, n);
	lt__put(w, "", 1);
}

/* Up to n chars of p, stopping at a NUL; the rest of the n bytes are 0. */
static inline void lt__put_chars(struct lt__writer *w, const char *p, size_t n)
{
	if (n > w->cap - w->off) {
		w->overflow = 1;
		return;
	}
	size_t i = 0;
	for (; i < n && p && p[i]; i++)
		w->p[w->off + i] = p[i];
	memset(w->p + w->off + i, 0, n - i);
	w->off += (uint32_t)n;
}

static inline void lt__put_seq(struct lt__writer *w, const void *p,
			       uint32_t len, size_t elem)
{
	lt__put(w, &len, 4);
	if (len)
		lt__put(w, p, (size_t)len * elem);
}

/* Preprocessor plumbing. */
#define LT__CAT(a, b) LT__CAT_(a, b)
#define LT__CAT_(a, b) a##b
#define LT__NARGS(...)                                                         \
	LT__NARGS_(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, \
		   8, 7, 6, 5, 4, 3, 2, 1, 0)
#define LT__NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, \
		   _14, _15, _16, _17, _18, _19, _20, N, ...)              \
	N

/* LT_ARGS(t1, n1, t2, n2, ...): up to 10 typed arguments, as pairs. */
#define LT_ARGS(...) (__VA_ARGS__)
#define LT__MAP(op, ...) \
	LT__CAT(LT__MAP_, LT__NARGS(__VA_ARGS__))(op, __VA_ARGS__)
#define LT__MAP_2(op, t, n) op(t, n)
#define LT__MAP_4(op, t, n, ...) op(t, n) LT__MAP_2(op, __VA_ARGS__)
#define LT__MAP_6(op, t, n, ...) op(t, n) LT__MAP_4(op, __VA_ARGS__)
#define LT__MAP_8(op, t, n, ...) op(t, n) LT__MAP_6(op, __VA_ARGS__)
#define LT__MAP_10(op, t, n, ...) op(t, n) LT__MAP_8(op, __VA_ARGS__)
#define LT__MAP_12(op, t, n, ...) op(t, n) LT__MAP_10(op, __VA_ARGS__)
#define LT__MAP_14(op, t, n, ...) op(t, n) LT__MAP_12(op, __VA_ARGS__)
#define LT__MAP_16(op, t, n, ...) op(t, n) LT__MAP_14(op, __VA_ARGS__)
#define LT__MAP_18(op, t, n, ...) op(t, n) LT__MAP_16(op, __VA_ARGS__)
#define LT__MAP_20(op, t, n, ...) op(t, n) LT__MAP_18(op, __VA_ARGS__)
/* LT__LIST(op, t1, n1, t2, n2, ...): "op(t1, n1), op(t2, n2), ...", the
 * commas between, not after */
#define LT__LIST(op, ...) \
	LT__CAT(LT__LIST_, LT__NARGS(__VA_ARGS__))(op, __VA_ARGS__)
#define LT__LIST_2(op, t, n) op(t, n)
#define LT__LIST_4(op, t, n, ...) op(t, n), LT__LIST_2(op, __VA_ARGS__)
#define LT__LIST_6(op, t, n, ...) op(t, n), LT__LIST_4(op, __VA_ARGS__)
#define LT__LIST_8(op, t, n, ...) op(t, n), LT__LIST_6(op, __VA_ARGS__)
#define LT__LIST_10(op, t, n, ...) op(t, n), LT__LIST_8(op, __VA_ARGS__)
#define LT__LIST_12(op, t, n, ...) op(t, n), LT__LIST_10(op, __VA_ARGS__)
#define LT__LIST_14(op, t, n, ...) op(t, n), LT__LIST_12(op, __VA_ARGS__)
#define LT__LIST_16(op, t, n, ...) op(t, n), LT__LIST_14(op, __VA_ARGS__)
#define LT__LIST_18(op, t, n, ...) op(t, n), LT__LIST_16(op, __VA_ARGS__)
#define LT__LIST_20(op, t, n, ...) op(t, n), LT__LIST_18(op, __VA_ARGS__)
#define LT__PARAM(t, n) t n
#define LT__NAME(t, n) n
/* the parameters "t1 n1, ...", the arguments "n1, ...", and zeros */
#define LT__PARAMS(...) LT__LIST(LT__PARAM, __VA_ARGS__)
#define LT__NAMES(...) LT__LIST(LT__NAME, __VA_ARGS__)
#define LT__ZEROS(...) LT__LIST(LT__ZERO, __VA_ARGS__)
#define LT__VOID(t, n) (void)n;
#define LT__UNPAREN(...) __VA_ARGS__

/*
 * Fields are parenthesised tuples (KIND, ...), walked two ways.  The walk
 * pastes _END onto the macro left after the last tuple; LT__EMPTY() holds
 * back each tuple's expansion until after that paste, so that the commas
 * it produces do not split the paste's arguments.
 */
#define LT__EMPTY()
/* a paste of its own: the walk runs inside LT__CAT */
#define LT__KIND(a, b) LT__KIND_(a, b)
#define LT__KIND_(a, b) a##b
#define LT_FIELDS(...) __VA_ARGS__
#define LT_FIELD_INT(name, expr) (INT, name, expr, 10)
#define LT_FIELD_HEX(name, expr) (INT, name, expr, 16)
#define LT_FIELD_ENUM(prov, en, name, expr) \
	(ENUM, name, expr, &lt__enum_##prov##__##en)
#define LT_FIELD_FLOAT(name, expr) (FLOAT, name, expr)
#define LT_FIELD_STRING(name, expr) (STRING, name, expr)
#define LT_FIELD_ARRAY(name, ptr, count) (ARRAY, name, ptr, count)
#define LT_FIELD_SEQUENCE(name, ptr, len) (SEQ, name, ptr, len)
#define LT_FIELD_CHARS(name, ptr, count) (CHARS, name, ptr, count)

/* The field's description (a static initializer). */
#define LT__D_INT(name, expr, b) \
	{ #name, LT_FT_INT, sizeof(expr), LT__SIGNED(expr), b, 0, NULL },
#define LT__D_ENUM(name, expr, e) \
	{ #name, LT_FT_ENUM, sizeof(expr), LT__SIGNED(expr), 10, 0, e },
#define LT__D_FLOAT(name, expr) \
	{ #name, LT_FT_FLOAT, sizeof(expr), 1, 10, 0, NULL },
#define LT__D_STRING(name, expr) { #name, LT_FT_STRING, 1, 0, 10, 0, NULL },
#define LT__D_ARRAY(name, p, n)                                               \
	{ #name,	 LT_FT_ARRAY, sizeof((p)[0]), LT__SIGNED((p)[0]), 10, \
	  (uint32_t)(n), NULL },
#define LT__D_SEQ(name, p, n)       \
	{                           \
		#name,              \
		LT_FT_SEQUENCE,     \
		sizeof((p)[0]),     \
		LT__SIGNED((p)[0]), \
		10,                 \
		0,                  \
		NULL                \
	},
#define LT__D_CHARS(name, p, n) \
	{ #name, LT_FT_CHARS, 1, 1, 10, (uint32_t)(n), NULL },
#define LT__D(kind, ...) LT__KIND(LT__D_, kind)(__VA_ARGS__)
#define LT__DA(...) LT__D LT__EMPTY()(__VA_ARGS__) LT__DB
#define LT__DB(...) LT__D LT__EMPTY()(__VA_ARGS__) LT__DA
#define LT__DA_END
#define LT__DB_END
#define LT__DESCS(seq) LT__CAT(LT__DA seq, _END)

/* The field's serialisation (statements in the probe). */
#define LT__W_INT(name, expr, b)                                               \
	{                                                                      \
		LT__STATIC_ASSERT(LT__IS_INT(expr), #name ": not an integer"); \
		LT__TYPE(expr) lt__v = (expr);                                 \
		lt__put(&lt__w, &lt__v, sizeof(lt__v));                        \
	}
#define LT__W_ENUM(name, expr, e) LT__W_INT(name, expr, 10)
#define LT__W_FLOAT(name, expr)                                     \
	{                                                           \
		LT__STATIC_ASSERT(LT__IS_FLOAT(expr),               \
				  #name ": not a float or double"); \
		LT__TYPE(expr) lt__v = (expr);                      \
		lt__put(&lt__w, &lt__v, sizeof(lt__v));             \
	}
#define LT__W_STRING(name, expr)                           \
	{                                                  \
		LT__STATIC_ASSERT(LT__IS_STRING(expr),     \
				  #name ": not a string"); \
		lt__put_string(&lt__w, (expr));            \
	}
#define LT__W_ARRAY(name, p, n)                                                \
	{                                                                      \
		LT__STATIC_ASSERT(LT__IS_INT((p)[0]), #name ": not integers"); \
		lt__put(&lt__w, (p), sizeof((p)[0]) * (size_t)(n));            \
	}
#define LT__W_SEQ(name, p, n)                                                  \
	{                                                                      \
		LT__STATIC_ASSERT(LT__IS_INT((p)[0]), #name ": not integers"); \
		lt__put_seq(&lt__w, (p), (uint32_t)(n), sizeof((p)[0]));       \
	}
#define LT__W_CHARS(name, p, n)                                              \
	{                                                                    \
		LT__STATIC_ASSERT(sizeof((p)[0]) == 1, #name ": not chars"); \
		lt__put_chars(&lt__w, (const char *)(p), (size_t)(n));       \
	}
#define LT__W(kind, ...) LT__KIND(LT__W_, kind)(__VA_ARGS__)
#define LT__WA(...) LT__W LT__EMPTY()(__VA_ARGS__) LT__WB
#define LT__WB(...) LT__W LT__EMPTY()(__VA_ARGS__) LT__WA
#define LT__WA_END
#define LT__WB_END
#define LT__WRITES(seq) LT__CAT(LT__WA seq, _END)

/* The field's size if fixed, else LT_EVENT_MAX (a sum in the probe). */
#define LT__S_INT(name, expr, b) +sizeof(expr)
#define LT__S_ENUM(name, expr, e) +sizeof(expr)
#define LT__S_FLOAT(name, expr) +sizeof(expr)
#define LT__S_STRING(name, expr) +LT_EVENT_MAX
#define LT__S_ARRAY(name, p, n) +sizeof((p)[0]) * (size_t)(n)
#define LT__S_SEQ(name, p, n) +LT_EVENT_MAX
#define LT__S_CHARS(name, p, n) +(size_t)(n)
#define LT__S(kind, ...) LT__KIND(LT__S_, kind)(__VA_ARGS__)
#define LT__SA(...) LT__S LT__EMPTY()(__VA_ARGS__) LT__SB
#define LT__SB(...) LT__S LT__EMPTY()(__VA_ARGS__) LT__SA
#define LT__SA_END
#define LT__SB_END
#define LT__SIZE(seq) LT__CAT(LT__SA seq, _END)

#define LT__SECTION __attribute__((section("lt_events"), used))

#if defined(LT_HAVE_RSEQ) && !defined(LT_NO_INLINE_SEQ)
#define LT__LAYOUT LT_SEQ_LAYOUT
/* a payload of 8-16 bytes: lo at 4, hi at the payload's last 8 bytes;
 * 4-7 bytes: the same with 4-byte words */
#define LT__EMIT_WORDS8(D, LO, HI, LEN)                    \
	LT__SEQ_EMIT(D, LO, HI, LEN, "mov %[lo], 4(%%r9)", \
		     "mov %[hi], -4(%%r9,%[len])", lt_probe_emit_words8)
#define LT__EMIT_WORDS4(D, LO, HI, LEN)                     \
	LT__SEQ_EMIT(D, LO, HI, LEN, "mov %k[lo], 4(%%r9)", \
		     "mov %k[hi], (%%r9,%[len])", lt_probe_emit_words4)
#else
#define LT__LAYOUT 0
#define LT__EMIT_WORDS8 lt_probe_emit_words8
#define LT__EMIT_WORDS4 lt_probe_emit_words4
#endif

/* A payload of FIXED bytes, 4 to 16, that WRITES serialises into lt__w:
 * in two words, with no buffer in memory, to the inline sequence of
 * tp_seq.h where there is one, else to the library (D its descriptor). */
#define LT__EMIT_FIXED(D, FIXED, WRITES)                                       \
	do {                                                                   \
		char lt__buf[16];                                              \
		struct lt__writer lt__w = { lt__buf, 0, 16, 0 };               \
		uint64_t lt__lo = 0, lt__hi = 0;                               \
		WRITES(void) lt__w;                                            \
		if ((FIXED) >= 8) {                                            \
			memcpy(&lt__lo, lt__buf, 8);                           \
			memcpy(&lt__hi, lt__buf + (FIXED)-8, 8);               \
			LT__EMIT_WORDS8(D, lt__lo, lt__hi, (uint32_t)(FIXED)); \
		} else {                                                       \
			uint32_t lt__x, lt__y;                                 \
			memcpy(&lt__x, lt__buf, 4);                            \
			memcpy(&lt__y, lt__buf + (FIXED)-4, 4);                \
			lt__lo = lt__x;                                        \
			lt__hi = lt__y;                                        \
			LT__EMIT_WORDS4(D, lt__lo, lt__hi, (uint32_t)(FIXED)); \
		}                                                              \
	} while (0)

#define LT__EVENT_COMMON(prov, ev, level)                               \
	static struct lt_event_desc lt__ev_##prov##__##ev               \
		__attribute__((unused)) = { 0,                          \
					    LT__LAYOUT,                 \
					    level,                      \
					    #prov,                      \
					    #ev,                        \
					    #prov ":" #ev,              \
					    lt__fields0_##prov##__##ev, \
					    0,                          \
					    NULL,                       \
					    NULL };                     \
	static struct lt_event_desc *const lt__evp_##prov##__##ev       \
		LT__SECTION = &lt__ev_##prov##__##ev;

/* An event with arguments.  A payload of 4 to 16 bytes of fixed size
 * goes in two registers, with no buffer in memory, to the inline
 * sequence of tp_seq.h where there is one, else to the library. */
#define LT_EVENT(prov, ev, level, args, fields)                               \
	__attribute__((unused)) static inline const struct lt_field_desc      \
		*lt__fields_##prov##__##ev(LT__PARAMS args)                   \
	{                                                                     \
		LT__MAP(LT__VOID, LT__UNPAREN args)                           \
		static const struct lt_field_desc lt__f[] = { LT__DESCS(      \
			fields){ NULL, 0, 0, 0, 0, 0, NULL } };               \
		return lt__f;                                                 \
	}                                                                     \
	static const struct lt_field_desc *lt__fields0_##prov##__##ev(void)   \
	{                                                                     \
		return lt__fields_##prov##__##ev(LT__ZEROS args);             \
	}                                                                     \
	LT__EVENT_COMMON(prov, ev, level)                                     \
	/* a payload of variable size, or fixed outside 4-16 bytes: in a    \
	 * buffer on the stack, to the library */ \
	__attribute__((unused)) static void lt__probe_mem_##prov##__##ev(     \
		LT__PARAMS args)                                              \
	{                                                                     \
		LT__MAP(LT__VOID, LT__UNPAREN args)                           \
		char lt__buf[LT_EVENT_MAX];                                   \
		struct lt__writer lt__w = { lt__buf, 0, sizeof(lt__buf), 0 }; \
		LT__WRITES(fields)                                            \
		lt_probe_emit(&lt__ev_##prov##__##ev, lt__buf, lt__w.off,     \
			      lt__w.overflow);                                \
	}                                                                     \
	/* inline at every call site, whatever their number: the fixed     \
	 * payload's sequence belongs there (tp_seq.h) */  \
	__attribute__((unused, always_inline)) static inline void             \
		lt__probe_##prov##__##ev(LT__PARAMS args)                     \
	{                                                                     \
		LT__MAP(LT__VOID, LT__UNPAREN args)                           \
		const size_t lt__fixed = 0 LT__SIZE(fields);                  \
		if (lt__fixed >= 4 && lt__fixed <= 16)                        \
			LT__EMIT_FIXED(&lt__ev_##prov##__##ev, lt__fixed,     \
				       LT__WRITES(fields));                   \
		else                                                          \
			lt__probe_mem_##prov##__##ev(LT__NAMES args);         \
	}

/* An event that carries no fields. */
#define LT_EVENT_NOARGS(prov, ev, level)                                     \
	static const struct lt_field_desc *lt__fields0_##prov##__##ev(void)  \
	{                                                                    \
		static const struct lt_field_desc lt__f[] = {                \
			{ NULL, 0, 0, 0, 0, 0, NULL }                        \
		};                                                           \
		return lt__f;                                                \
	}                                                                    \
	LT__EVENT_COMMON(prov, ev, level)                                    \
	__attribute__((unused)) static inline void lt__probe_##prov##__##ev( \
		void)                                                        \
	{                                                                    \
		lt_probe_emit(&lt__ev_##prov##__##ev, NULL, 0, 0);           \
	}

/* Labels for an enum field: LT_ENUM_VALUE("A", 0) LT_ENUM_RANGE("B", 1, 9) */
#define LT_ENUM_VALUE(label, v) { label, (v), (v) },
#define LT_ENUM_RANGE(label, lo, hi) { label, (lo), (hi) },
#define LT_ENUM(prov, en, ...)                                            \
	static const struct lt_enum_entry lt__enum_e_##prov##__##en[] = { \
		__VA_ARGS__                                               \
	};                                                                \
	static const struct lt_enum_desc lt__enum_##prov##__##en          \
		__attribute__((unused)) = {                               \
			#prov "_" #en, lt__enum_e_##prov##__##en,         \
			sizeof(lt__enum_e_##prov##__##en) /               \
				sizeof(lt__enum_e_##prov##__##en[0])      \
		};

/* Emits the event if it is enabled; the arguments are evaluated only then. */
#define lt_trace(prov, ev, ...)                                             \
	do {                                                                \
		if (__builtin_expect(                                       \
			    __atomic_load_n(&lt__ev_##prov##__##ev.enabled, \
					    __ATOMIC_RELAXED),              \
			    0))                                             \
			lt__probe_##prov##__##ev(__VA_ARGS__);              \
	} while (0)

/* Whether the event is enabled (to skip preparing costly arguments). */
#define lt_trace_enabled(prov, ev)                                       \
	__builtin_expect(__atomic_load_n(&lt__ev_##prov##__##ev.enabled, \
					 __ATOMIC_RELAXED),              \
			 0)

/* markers, lt_tracef(): their grammar is checked at compile time */
#include <lowtrace/tracef.h>

/*
 * Every object that includes this header registers the events of its
 * whole "lt_events" section when it is loaded, and the first one starts
 * the session the environment asks for; the registry counts repeated
 * registrations of one section.  liblowtrace's own events (it defines
 * LT__NO_REGISTRATION) are registered by its registry instead, which
 * starts no session.
 */
#ifndef LT__NO_REGISTRATION
extern struct lt_event_desc *const __start_lt_events[]
	__attribute__((weak, visibility("hidden")));
extern struct lt_event_desc *const __stop_lt_events[]
	__attribute__((weak, visibility("hidden")));

__attribute__((constructor, unused)) static void lt__register_events(void)
{
	struct lt_event_desc *const *a = __start_lt_events,
				    *const *b = __stop_lt_events;
	if (a != b) {
		lt_probe_register_range(a, b);
		lt_session_autostart();
	}
}

__attribute__((destructor, unused)) static void lt__unregister_events(void)
{
	struct lt_event_desc *const *a = __start_lt_events,
				    *const *b = __stop_lt_events;
	if (a != b)
		lt_probe_unregister_range(a, b);
}
#endif

#ifdef __cplusplus
}
#endif

#endif
