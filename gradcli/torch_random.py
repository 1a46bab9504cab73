"""PyTorch's CPU default random generator (torch 2.13), reproduced bit for bit in NumPy.

Why: a script that seeds torch and draws rand/randn/randint must print torch's numbers, not
gradcli's own, so that its printed values (and the gradients computed from them) are torch's.
torch is never imported here; tests/test_torch_random.py compares every draw with it.

What is modelled (read from ATen's MT19937RNGEngine.h, CPUGeneratorImpl.cpp,
core/DistributionsHelper.h, core/TransformationHelper.h, native/cpu/DistributionTemplates.h,
native/cpu/avx_mathfun.h and randperm_cpu in TensorFactories.cpp):

* the engine: MT19937 with 32-bit state words, seeded from the low 32 bits of the 64-bit seed;
  ``random()`` is one tempered word, ``random64()`` two (first word high);
* float32 draws use one word (24 bits), float64 and int64 full-range draws two (53/64 bits);
* GCC built torch with -ffp-contract=fast: a multiply feeding only an add is one fused
  multiply-add (uniform_'s x * (to - from) + from, the scalar normal's ret * std + mean,
  and the AVX2 log/sincos polynomials); without that ~1% of float32 normals differ;
* ``normal_`` of 16 or more contiguous elements fills uniforms and transforms them 16 at a
  time (Box-Muller on pairs j, j+8), redoing the last 16 with fresh uniforms when the size
  is not a multiple of 16; float32 takes the AVX2 kernel (Cephes log/sincos polynomials in
  single precision), float64 the scalar one (libm log, cos, sin, exact fma);
* fewer than 16 elements draw one double normal at a time with a cached second sample
  (the cache ``get_state`` carries in its legacy ``normal_y`` slot);
* ``random_``/``randint`` draw one word when the range is below 2**28, else two.

Not modelled: other kernel paths than AVX2 for float32 normal_ of >= 16 elements (torch's
scalar NormalFill16 uses libm logf/cosf/sinf), bernoulli_(p: float) on Intel CPUs (torch
draws it from MKL there; this is the non-Intel path), randperm of 2**32/20 or more elements,
half/bfloat16 and integer dtypes other than int64, non-contiguous outputs.

Speed: the state is twisted 624 words at a time with NumPy slices (one vector op for the
pairs, three dependent XOR slices), and the fused multiply-adds torch's kernels use are
emulated exactly with float64 error-free transformations. A million draws, 2 shared cores:
rand float32 0.08 s, randn float32 0.21 s, randn float64 0.30 s, randperm 0.28 s.
"""

from __future__ import annotations

import math
import os
import struct

import numpy as np

__all__ = ["Generator", "STATE_SIZE"]

_N = 624
_M = 397
_MATRIX_A = np.uint32(0x9908B0DF)
_UMASK = np.uint32(0x80000000)
_LMASK = np.uint32(0x7FFFFFFF)
_U64 = (1 << 64) - 1

# sizeof(CPUGeneratorImplState): the legacy POD (seed, left, seeded, next, 624 uint64 state
# words, normal_x/y/rho, normal_is_valid + padding) then the float cache and its flag.
STATE_SIZE = 5056
_STATE_WORDS_AT = 24
_NORMAL_Y_AT = 5024
_NORMAL_VALID_AT = 5040
_FLOAT_NORMAL_AT = 5048
_FLOAT_VALID_AT = 5052

_DTYPES = {"float32": np.float32, "float64": np.float64}


def _float_dtype(dtype: str) -> type:
    """The NumPy type of a floating dtype name; torch draws differently per width."""
    try:
        return _DTYPES[str(dtype)]
    except KeyError:
        raise ValueError(f"dtype must be 'float32' or 'float64', not {dtype!r}") from None


def _numel(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64)) if len(shape) else 1


def _twist(s: np.ndarray) -> np.ndarray:
    """The next 624 state words. The C loop updates in place, so word i >= 227 XORs in the
    already-new word i - 227, while the twisted pair (i, i + 1) is still old (but for the
    last word): one vector op for all the pairs, then three dependent slices of <= 227 words."""
    y = (s[:-1] & _UMASK) | (s[1:] & _LMASK)
    mixed = (y >> np.uint32(1)) ^ ((np.uint32(0) - (s[1:] & np.uint32(1))) & _MATRIX_A)
    new = np.empty(_N, dtype=np.uint32)
    np.bitwise_xor(s[_M:_N], mixed[0:227], out=new[0:227])
    np.bitwise_xor(new[0:227], mixed[227:454], out=new[227:454])
    np.bitwise_xor(new[227:396], mixed[454:623], out=new[454:623])
    first = int(new[0])
    last = (int(s[623]) & 0x80000000) | (first & 0x7FFFFFFF)
    new[623] = int(new[396]) ^ (last >> 1) ^ (0x9908B0DF if first & 1 else 0)
    return new


def _temper(y: np.ndarray) -> np.ndarray:
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


def _seed_words(seed: int) -> np.ndarray:
    """init_with_uint32: a serial recurrence, done with Python ints (624 steps, ~0.2 ms)."""
    words = [seed & 0xFFFFFFFF]
    for j in range(1, _N):
        prev = words[-1]
        words.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF)
    return np.array(words, dtype=np.uint32)


# ---------------------------------------------------------------------------------------------
# libm: torch's scalar kernels call glibc's log/log1p/sin/cos. NumPy's float64 loops call the
# same libm unless it was built with its own SIMD versions (AVX512 SVML); a probe decides once
# whether NumPy's results can stand in for libm's, else the math module (libm) is used per
# element.

_LIBM_OK: bool | None = None


def _numpy_is_libm() -> bool:
    global _LIBM_OK
    if _LIBM_OK is None:
        probe = np.linspace(1e-6, 6.283, 4099)
        _LIBM_OK = all(
            np.array_equal(getattr(np, name)(arg), [getattr(math, name)(v) for v in arg.tolist()])
            for name, arg in (("log", probe), ("sin", probe), ("cos", probe), ("log1p", -probe / 7))
        )
    return _LIBM_OK


def _libm(name: str, x: np.ndarray) -> np.ndarray:
    if x.size < 64 or not _numpy_is_libm():
        f = getattr(math, name)
        return np.array([f(v) for v in x.ravel().tolist()], dtype=np.float64).reshape(x.shape)
    return getattr(np, name)(x)


def _fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray | float) -> np.ndarray:
    """a*b + c rounded once, as std::fma (or a contracted multiply-add) gives; NumPy has no fma.

    a*b = p + e exactly (Dekker); p + c = s + t exactly; the exact result s + t + e is summed
    error-free down to r + (w + v), whose only rounding is the last one (the w + v rounding
    could matter only within ~2**-100 of a tie).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        p = a * b
        e = _two_product_error(a, b, p)
        s, t = _two_sum(p, c)
        u, v = _two_sum(t, e)
        r, w = _two_sum(s, u)
        out = r + (w + v)
        plain = p + c
    return np.where(np.isfinite(out), out, plain)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


_SPLIT = 134217729.0  # 2**27 + 1


def _two_product_error(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray:
    def split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = _SPLIT * x
        hi = t - (t - x)
        return hi, x - hi

    ah, al = split(a)
    bh, bl = split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(r: np.ndarray, w: np.ndarray) -> np.ndarray:
    bits = r.view(np.int64).copy()
    inexact = (w != 0) & ((bits & 1) == 0) & np.isfinite(r) & (r != 0)
    toward_larger = (w > 0) == (r > 0)
    bits = np.where(inexact, bits + np.where(toward_larger, 1, -1), bits)
    return bits.view(np.float64)


def _fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray | float) -> np.ndarray:
    """Correctly rounded float32 a*b + c (vfmadd): the product is exact in float64, so only the
    float64 sum's rounding can spoil the float32 one, and only when that sum lands exactly on a
    float32 tie (or below float32's normal range): there the exact error redoes it, rounded to
    odd (53 >= 2*24 + 2 bits), which makes the final rounding a single one."""
    with np.errstate(over="ignore", invalid="ignore"):
        p = np.multiply(a, b, dtype=np.float64)
        s = np.add(p, c, dtype=np.float64)
        out = s.astype(np.float32)
        bits = s.view(np.int64)
        risky = ((bits & 0x1FFFFFFF) == 0x10000000) | (np.abs(s) < 2.0**-125)
        if risky.any():
            idx = np.nonzero(risky)
            pi = p[idx]
            ci = np.broadcast_to(np.asarray(c, dtype=np.float64), p.shape)[idx]
            si, ti = _two_sum(pi, ci)
            out[idx] = _round_to_odd(si, ti).astype(np.float32)
    return out


# ---------------------------------------------------------------------------------------------
# avx_mathfun.h: Cephes single-precision log and sincos, as torch's AVX2 normal kernel runs them.


def _f(x: float) -> np.float32:
    return np.float32(x)


_LOG_P = [
    _f(v)
    for v in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]


def _log256_ps(x: np.ndarray) -> np.ndarray:
    """log256_ps for x > 0 (torch only calls it on 1 - u, u in [0, 1)), float32 throughout.

    torch is built with GCC's default -ffp-contract=fast, which turns each multiply feeding
    only an add or subtract into one fused multiply-add; where two products meet in one sum
    the first (in source order) is fused. Without the fusing ~1% of normals differ in the last
    bit; with it every one agrees.
    """
    one = _f(1.0)
    x = np.maximum(x, np.array(0x00800000, dtype=np.int32).view(np.float32))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(np.float32) + one
    x = ((bits & ~0x7F800000) | np.float32(0.5).view(np.int32)).view(np.float32)
    mask = x < _f(0.707106781186547524)
    tmp = np.where(mask, x, _f(0.0))
    x = x - one
    e = e - np.where(mask, one, _f(0.0))
    x = x + tmp
    z = x * x
    y = _LOG_P[0]
    for coeff in _LOG_P[1:]:
        y = _fma32(y, x, coeff)
    y = y * x
    y = _fma32(y, z, e * _f(-2.12194440e-4))
    y = _fma32(-z, _f(0.5), y)
    x = x + y
    return _fma32(e, _f(0.693359375), x)


def _sincos256_ps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sincos256_ps in float32 with GCC's fused multiply-adds (see _log256_ps), bit for bit."""
    xi = x.view(np.int32)
    sign_sin = xi & np.int32(-0x80000000)
    x = (xi & 0x7FFFFFFF).view(np.float32)
    y = x * _f(1.27323954473516)
    j = y.astype(np.int32)  # cvttps: truncation
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    swap_sin = (j & 4) << 29
    poly_sin = (j & 2) == 0  # where the sine polynomial gives sin (else it gives cos)
    x = _fma32(y, _f(-0.78515625), x)
    x = _fma32(y, _f(-2.4187564849853515625e-4), x)
    x = _fma32(y, _f(-3.77489497744594108e-8), x)
    sign_cos = (~(j - 2) & 4) << 29
    sign_sin = sign_sin ^ swap_sin
    z = x * x
    yc = _fma32(_f(2.443315711809948e-005), z, _f(-1.388731625493765e-003))
    yc = _fma32(yc, z, _f(4.166664568298827e-002))
    yc = yc * z
    yc = _fma32(yc, z, -(z * _f(0.5)))
    yc = yc + _f(1.0)
    ys = _fma32(_f(-1.9515295891e-4), z, _f(8.3321608736e-3))
    ys = _fma32(ys, z, _f(-1.6666654611e-1))
    ys = ys * z
    ys = _fma32(ys, x, x)
    zero = _f(0.0)
    ysin2 = np.where(poly_sin, ys, zero)
    ysin1 = np.where(poly_sin, zero, yc)
    ys = ys - ysin2
    yc = yc - ysin1
    s = (ysin1 + ysin2).view(np.int32) ^ sign_sin
    c = (yc + ys).view(np.int32) ^ sign_cos
    return s.view(np.float32), c.view(np.float32)


def _box_muller16_f32(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """NormalFill16<float> (AVX2) on rows of 16 uniforms: lanes j and j+8 make a pair."""
    u1 = _f(1.0) - u[:, :8]
    u2 = u[:, 8:]
    radius = np.sqrt(_f(-2.0) * _log256_ps(u1))
    theta = _f(2.0 * math.pi) * u2
    s, c = _sincos256_ps(theta)
    out = np.empty_like(u)
    out[:, :8] = _fma32(radius * c, _f(std), _f(mean))
    out[:, 8:] = _fma32(radius * s, _f(std), _f(mean))
    return out


def _box_muller16_f64(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """NormalFill16<double> (scalar): libm log, cos, sin and std::fma."""
    u1 = 1.0 - u[:, :8]
    u2 = u[:, 8:]
    radius = np.sqrt(-2.0 * _libm("log", u1))
    theta = (2.0 * math.pi) * u2
    out = np.empty_like(u)
    out[:, :8] = _fma64(radius * _libm("cos", theta), std, mean)
    out[:, 8:] = _fma64(radius * _libm("sin", theta), std, mean)
    return out


def _swap_all(targets: np.ndarray) -> np.ndarray:
    """arange(n) after `for k in range(n - 1): swap(p[k], p[targets[k]])`, targets[k] >= k,
    without the serial loop (a million Python swaps take ~1 s).

    Before step k, position k holds a[k]: its own index, or what the last earlier step that
    swapped into k (prev[k]) brought, which is a[prev[k]]; following prev to its root gives
    a (pointer jumping, log2 n vector rounds). Step k then fixes p[k]: a[k] if it swaps with
    itself, else the value at targets[k], which is a[last] for the last earlier step with
    the same target, or targets[k] itself if none.
    """
    m = targets.size
    n = m + 1
    steps = np.arange(m, dtype=np.int64)
    order = np.lexsort((steps, targets))  # by target, then by step
    sorted_targets = targets[order]
    repeat = np.zeros(m, dtype=bool)
    repeat[1:] = sorted_targets[1:] == sorted_targets[:-1]
    last = np.full(m, -1, dtype=np.int64)  # the previous step with the same target
    last[order[1:][repeat[1:]]] = order[:-1][repeat[1:]]
    group_end = np.ones(m, dtype=bool)
    group_end[:-1] = ~repeat[1:]
    ends = order[group_end]
    ends_target = targets[ends]
    # the last step before position t's own step that swapped into t
    before = np.where(ends == ends_target, last[ends], ends)
    prev = np.full(n, -1, dtype=np.int64)
    prev[ends_target] = before
    root = np.where(prev < 0, np.arange(n, dtype=np.int64), prev)
    while True:
        nxt = root[root]
        if np.array_equal(nxt, root):
            break
        root = nxt
    out = np.empty(n, dtype=np.int64)
    out[n - 1] = root[n - 1]
    from_last = np.where(last >= 0, root[np.maximum(last, 0)], targets)
    out[:m] = np.where(targets == steps, root[:m], from_last)
    return out


# ---------------------------------------------------------------------------------------------


class Generator:
    """torch.Generator() on the CPU (and torch's default generator): same seed, same numbers."""

    def __init__(self, seed: int = 67280421310721) -> None:
        # torch.Generator() starts from c10's default_rng_seed_val (67280421310721).
        self.manual_seed(seed)

    # -- seeding and state ----------------------------------------------------------------

    def manual_seed(self, seed: int) -> Generator:
        """torch.manual_seed: ints in [-2**63, 2**64); a negative seed is its two's complement."""
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise ValueError(f"Overflow when unpacking long long: seed {seed} is outside [-2**63, 2**64)")
        self._seed = seed & _U64
        self._state = _seed_words(self._seed)
        self._left = 1
        self._next = 0
        self._normal_f64: float | None = None
        self._normal_f32: float | None = None
        return self

    def initial_seed(self) -> int:
        """The seed as torch reports it (an unsigned 64-bit int)."""
        return self._seed

    def seed(self) -> int:
        """Reseed non-deterministically (torch reads 8 bytes of /dev/urandom) and return it."""
        value = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(value)
        return value

    def get_state(self) -> bytes:
        """torch.get_rng_state().numpy().tobytes(): the 5056-byte CPUGeneratorImplState."""
        buf = bytearray(STATE_SIZE)
        struct.pack_into("<QiiQ", buf, 0, self._seed, self._left, 1, self._next)
        buf[_STATE_WORDS_AT : _STATE_WORDS_AT + 8 * _N] = self._state.astype("<u8").tobytes()
        if self._normal_f64 is not None:
            struct.pack_into("<d", buf, _NORMAL_Y_AT, self._normal_f64)
            struct.pack_into("<i", buf, _NORMAL_VALID_AT, 1)
        if self._normal_f32 is not None:
            struct.pack_into("<f", buf, _FLOAT_NORMAL_AT, self._normal_f32)
            buf[_FLOAT_VALID_AT] = 1
        return bytes(buf)

    def set_state(self, state: bytes) -> None:
        """torch.set_rng_state: the same checks (size, seeded, 0 < left <= 624, next <= 624)."""
        state = bytes(state)
        if len(state) != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input RNG state size to be {len(state)}"
            )
        seed, left, seeded, nxt = struct.unpack_from("<QiiQ", state, 0)
        nxt &= 0xFFFFFFFF  # static_cast<uint32_t>
        if not (seeded != 0 and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        if nxt + left - 1 > _N:
            # torch would read past its state array (undefined behaviour): refuse instead.
            raise RuntimeError("Invalid mt19937 state: next + left - 1 exceeds 624")
        words = np.frombuffer(state, dtype="<u8", count=_N, offset=_STATE_WORDS_AT)
        self._seed = seed
        self._state = words.astype(np.uint32)  # std::copy truncates each uint64 to 32 bits
        self._left = left
        self._next = nxt
        (valid64,) = struct.unpack_from("<i", state, _NORMAL_VALID_AT)
        self._normal_f64 = struct.unpack_from("<d", state, _NORMAL_Y_AT)[0] if valid64 else None
        self._normal_f32 = (
            float(struct.unpack_from("<f", state, _FLOAT_NORMAL_AT)[0]) if state[_FLOAT_VALID_AT] else None
        )

    # -- the engine -------------------------------------------------------------------------

    def _words(self, n: int) -> np.ndarray:
        """The next n outputs of random() (tempered uint32), advancing the engine."""
        if n <= 0:
            return np.empty(0, dtype=np.uint32)
        parts = []
        take = min(n, self._left - 1)
        if take > 0:
            parts.append(self._state[self._next : self._next + take])
            self._next += take
            self._left -= take
        remaining = n - max(take, 0)
        while remaining > 0:
            self._state = _twist(self._state)
            k = min(remaining, _N)
            parts.append(self._state[:k])
            self._next = k
            self._left = _N + 1 - k
            remaining -= k
        raw = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return _temper(raw)

    def _words64(self, n: int) -> np.ndarray:
        """The next n outputs of random64(): two words, the first the high half."""
        w = self._words(2 * n).astype(np.uint64)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    def _unit(self, n: int, dtype: type) -> np.ndarray:
        """uniform_real_distribution<T>(0, 1): 24 bits of one word, or 53 bits of two."""
        if dtype is np.float32:
            return (self._words(n) & np.uint32(0xFFFFFF)).astype(np.float32) * _f(2.0**-24)
        return (self._words64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * (2.0**-53)

    # -- draws --------------------------------------------------------------------------------

    def rand(self, shape: tuple[int, ...], dtype: str = "float32") -> np.ndarray:
        """torch.rand: uniform_(0, 1)."""
        return self.uniform(shape, 0.0, 1.0, dtype)

    def uniform(
        self, shape: tuple[int, ...], low: float = 0.0, high: float = 1.0, dtype: str = "float32"
    ) -> np.ndarray:
        """Tensor.uniform_(low, high): x * (high - low) + low in the dtype, x in [0, 1)."""
        t = _float_dtype(dtype)
        info = np.finfo(t)
        if not (float(info.min) <= low <= float(info.max) and float(info.min) <= high <= float(info.max)):
            raise RuntimeError(f"uniform_: from/to out of bounds for {dtype}")
        if low > high:
            raise RuntimeError(
                f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}"
            )
        if high - low > float(info.max):
            raise RuntimeError("uniform_ expects to-from to be representable in the dtype")
        n = _numel(tuple(shape))
        x = self._unit(n, t)
        lo, hi = t(low), t(high)
        with np.errstate(over="ignore"):
            width = t(hi - lo)
        if lo == 0 and width == 1:
            values = x  # fma(x, 1, 0) is x: rand's common case skips the emulated fma
        elif t is np.float32:
            values = _fma32(x, width, lo)
        else:
            values = _fma64(x, width, lo)
        values = np.where(values == hi, lo, values).astype(t)
        return values.reshape(shape)

    def _normal_double(self) -> float:
        """normal_distribution<double>: one cached sample, else Box-Muller on two uniforms."""
        if self._normal_f64 is not None:
            value, self._normal_f64 = self._normal_f64, None
            return value
        u1, u2 = self._unit(2, np.float64).tolist()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._normal_f64 = r * math.sin(theta)
        return r * math.cos(theta)

    def normal(
        self,
        shape: tuple[int, ...],
        mean: float | np.ndarray = 0.0,
        std: float | np.ndarray = 1.0,
        dtype: str = "float32",
    ) -> np.ndarray:
        """Tensor.normal_(mean, std); torch.normal with tensor mean/std draws N(0, 1) first
        and then computes out * std + mean as two rounded ops (mul_ then add_)."""
        t = _float_dtype(dtype)
        if np.ndim(mean) or np.ndim(std):
            mean_a = np.asarray(mean, dtype=t)
            std_a = np.asarray(std, dtype=t)
            if np.any(std_a < 0):
                raise RuntimeError("normal expects all elements of std >= 0.0")
            full = np.broadcast_shapes(tuple(shape), mean_a.shape, std_a.shape)
            if np.ndim(std):
                out = self._normal_scalar(full, 0.0, 1.0, t)
                return (out * std_a).astype(t) + mean_a
            out = self._normal_scalar(full, 0.0, float(std), t)
            return (out + mean_a).astype(t)
        return self._normal_scalar(tuple(shape), float(mean), float(std), t)

    def _normal_scalar(self, shape: tuple[int, ...], mean: float, std: float, t: type) -> np.ndarray:
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        n = _numel(shape)
        if n == 0:
            return np.empty(shape, dtype=t)
        if n < 16:
            values = [self._normal_double() for _ in range(n)]
            # ret * std + mean in double (contracted to an fma), then cast.
            out = _fma64(np.array(values), std, mean).astype(t)
            return out.reshape(shape)
        data = self._unit(n, t)
        whole = n - n % 16
        if t is np.float32:
            fill = _box_muller16_f32
            mean_t, std_t = float(np.float32(mean)), float(np.float32(std))
        else:
            fill = _box_muller16_f64
            mean_t, std_t = mean, std
        data[:whole] = fill(data[:whole].reshape(-1, 16), mean_t, std_t).reshape(-1)
        if n % 16:
            tail = self._unit(16, t)
            data[n - 16 :] = fill(tail.reshape(1, 16), mean_t, std_t).reshape(-1)
        return data.reshape(shape)

    def randn(self, shape: tuple[int, ...], dtype: str = "float32") -> np.ndarray:
        """torch.randn: normal_(0, 1)."""
        return self.normal(shape, 0.0, 1.0, dtype)

    def randint(self, low: int, high: int, shape: tuple[int, ...], dtype: str = "int64") -> np.ndarray:
        """torch.randint(low, high, shape): random_(low, high)."""
        return self.random_(shape, dtype, low, high)

    def random_(
        self, shape: tuple[int, ...], dtype: str = "int64", low: int | None = None, high: int | None = None
    ) -> np.ndarray:
        """Tensor.random_(), random_(to) (low=0) and random_(from, to).

        Without bounds: int64 takes random64() % 2**63, float32 random() % (2**24 + 1),
        float64 random64() % (2**53 + 1). With bounds: (word % range) + low, one word when the
        range is below 2**28, two words otherwise.
        """
        if dtype not in ("int64", "float32", "float64"):
            raise ValueError(f"dtype must be 'int64', 'float32' or 'float64', not {dtype!r}")
        t = np.int64 if dtype == "int64" else _float_dtype(dtype)
        n = _numel(tuple(shape))
        if low is None and high is None:
            if n == 0:
                return np.empty(shape, dtype=t)
            if dtype == "int64":
                values = self._words64(n) % np.uint64(1 << 63)
            elif dtype == "float32":
                values = self._words(n) % np.uint32((1 << 24) + 1)
            else:
                values = self._words64(n) % np.uint64((1 << 53) + 1)
            return values.astype(t).reshape(shape)
        if low is None:
            low = 0
        low = int(low)
        if high is None:
            if dtype == "int64":
                high = 1 << 63
            else:
                high = 1 << (24 if dtype == "float32" else 53)
                high += 1
        high = int(high)
        if low >= high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        if dtype != "int64":
            digits = 24 if dtype == "float32" else 53
            if abs(low) > (1 << digits) or abs(high - 1) > (1 << digits):
                raise ValueError("bounds beyond 2**digits (torch rounds them per dtype): not modelled")
        elif not (low >= -(1 << 63) and high - 1 < (1 << 63)):
            raise RuntimeError("from/to out of bounds for int64")
        if n == 0:
            return np.empty(shape, dtype=t)
        span = high - low
        if span == 1 << 64:
            words = self._words64(n)
            return words.view(np.int64).astype(t).reshape(shape)
        # uniform_int_from_to_distribution: one word below 2**28, two from there on
        words = self._words64(n) if span >= 1 << 28 else self._words(n).astype(np.uint64)
        offsets = words % np.uint64(span)
        # static_cast<int64_t>((val % range) + base): uint64 arithmetic, wrapping.
        values = (offsets + np.uint64(low & _U64)).view(np.int64)
        return values.astype(t).reshape(shape)

    def randperm(self, n: int) -> np.ndarray:
        """torch.randperm(n) (int64): Fisher-Yates, swap i with i + random() % (n - i)."""
        n = int(n)
        if n < 0:
            raise RuntimeError(f"n must be non-negative, got {n}")
        if n >= (2**32 - 1) // 20:
            raise ValueError("randperm above 2**32 / 20 elements takes another torch path: not modelled")
        if n < 2:
            return np.arange(n, dtype=np.int64)
        targets = np.arange(n - 1, dtype=np.int64)
        targets += self._words(n - 1).astype(np.int64) % np.arange(n, 1, -1, dtype=np.int64)
        return _swap_all(targets)

    def bernoulli(
        self, p: float | np.ndarray, shape: tuple[int, ...] | None = None, dtype: str = "float32"
    ) -> np.ndarray:
        """torch.bernoulli(p_tensor) / Tensor.bernoulli_(p): u < p.

        A float32 probability tensor draws a 24-bit float per element, a float64 tensor or a
        Python float p a 53-bit double (the scalar path on non-Intel CPUs; Intel CPUs take
        MKL there, which this does not model).
        """
        t = _float_dtype(dtype)
        if isinstance(p, np.ndarray):
            pt = np.float32 if p.dtype == np.float32 else np.float64
            probs = np.asarray(p, dtype=pt)
            if shape is None:
                shape = probs.shape
            probs = np.broadcast_to(probs, tuple(shape))
            u = self._unit(probs.size, pt).reshape(probs.shape)
            return (u < probs).astype(t)
        p = float(p)
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        shape = tuple(shape or ())
        u = self._unit(_numel(shape), np.float64)
        return (u < p).astype(t).reshape(shape)

    def exponential(self, shape: tuple[int, ...], lambd: float = 1.0, dtype: str = "float32") -> np.ndarray:
        """Tensor.exponential_(lambd): (-1 / lambd) * log1p(-u) in double, u a 53-bit double."""
        t = _float_dtype(dtype)
        if not lambd > 0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
        n = _numel(tuple(shape))
        u = self._unit(n, np.float64)
        values = (-1.0 / float(lambd)) * _libm("log1p", -u)
        return values.astype(t).reshape(shape)

    def multinomial(self, probs: np.ndarray, num_samples: int, replacement: bool = False) -> np.ndarray:
        """torch.multinomial on a 1-D or 2-D float32/float64 array of weights (int64 indices).

        One sample, or any number without replacement, takes torch's Gumbel shortcut: q is an
        exponential_(1) draw of probs' shape, and the answer is argmax (or top-k) of probs / q.
        With replacement and more than one sample, each row's cumulative sum (in the dtype,
        serially) is divided by its total, its last entry set to 1, and each sample is the first
        bucket whose cumulative value is >= a 53-bit uniform double, rows one after another.
        """
        p = np.asarray(probs)
        if p.dtype not in (np.float32, np.float64):
            raise ValueError("multinomial: probs must be float32 or float64")
        if p.ndim not in (1, 2):
            raise RuntimeError("prob_dist must be 1 or 2 dim")
        num_samples = int(num_samples)
        if num_samples <= 0:
            raise RuntimeError("cannot sample n_sample <= 0 samples")
        rows = p.reshape(-1, p.shape[-1])
        if not replacement and num_samples > rows.shape[1]:
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        if not (np.all(np.isfinite(rows)) and np.all(rows >= 0)):
            raise RuntimeError("invalid multinomial distribution")
        if np.any(rows.sum(axis=1) <= 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and np.any(np.count_nonzero(rows, axis=1) < num_samples):
            raise RuntimeError(
                "invalid multinomial distribution (with replacement=False, not enough non-negative "
                "category to sample)"
            )
        if not replacement or num_samples == 1:
            dtype = "float32" if p.dtype == np.float32 else "float64"
            q = self.exponential(rows.shape, 1.0, dtype)
            scores = rows / q
            if num_samples == 1:
                out = np.argmax(scores, axis=1)[:, None]
            else:  # topk: largest first (ties, which need equal scores, go to the lower index)
                out = np.argsort(-scores, axis=1, kind="stable")[:, :num_samples]
            return out.astype(np.int64).reshape(p.shape[:-1] + (num_samples,))
        out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
        for i, row in enumerate(rows):
            cum = np.cumsum(row, dtype=row.dtype)  # serial, in the dtype, as torch's loop
            cum = cum / cum[-1]
            cum[-1] = 1
            u = self._unit(num_samples, np.float64)
            out[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
        return out.reshape(p.shape[:-1] + (num_samples,))
