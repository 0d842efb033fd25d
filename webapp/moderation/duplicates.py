"""Duplicate detection against the whole archive: MinHash LSH in the database, re-ranked
with rapidfuzz (duplicate detection that scales; figures in docs/performance.md).

How a lookup works:

1. The matching key (``webapp.domain.text.matching_key``: case, ё/е, stress marks, quotes,
   dashes, HTML entities, Markdown escapes, Latin look-alikes and punctuation folded) is cut
   into word shingles (the set of its words).
2. A MinHash signature of ``NUM_PERM`` values (datasketch) is split into ``BANDS`` bands
   of ``ROWS`` values; each band hashes to one 64-bit *bucket*. Two keys with word-set
   Jaccard similarity ``J`` share at least one bucket with probability
   ``1 - (1 - J**ROWS)**BANDS`` (J = 0.5 → 0.93, 0.6 → 0.99, 0.2 → 0.15).
   Besides the bands, every run of ``WINDOW`` words starting at a multiple of ``WINDOW`` in
   the leading half of the key is one more bucket (:func:`window_keys`): an old question
   whose last clause was replaced (a new twist, word-set Jaccard often near 1/3) still
   shares its leading windows with the original.
3. The buckets live in the table ``duplicate_bucket`` (bucket, question_id): every process
   sees the same index and nothing is rebuilt on restart. Archive imports, edits and every
   question past intake are indexed in their own transaction by a flush hook; a new
   viewer's question (status ``received``) is indexed by its pre-check task
   (:func:`ensure_indexed`, committed before the pre-check looks for duplicates), which
   keeps the MinHash work out of the viewer's request.
4. One statement finds the questions sharing buckets (at most ``MAX_LSH_CANDIDATES``,
   most shared buckets first, a leading window counting ``WINDOW_WEIGHT`` bands) with
   their keys; the keys are re-ranked with
   :func:`similarity` (:func:`scores`, vectorised) and those at or above
   ``DUPLICATE_THRESHOLD`` are returned.

The signature, the bucket format, the index writes and the lookup's statement and re-rank
are one index format (``INDEX_VERSION``): a change to one side that the other does not
follow silently stops matching the rows already written.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process
from sqlalchemy import delete, event, inspect, select
from sqlalchemy.orm import Session

from webapp.extensions import db
from webapp.moderation.models import DuplicateBucket
from webapp.submissions.models import Question

# Bump when the key, the shingles or the LSH parameters change, then run
# ``rebuild_index()`` (Celery task ``moderation.reindex``). Version 2 added the
# leading-window buckets and left the band buckets as they were (their salt stays
# ``BAND_FORMAT``): a version-1 index keeps answering, without the window buckets of the
# questions indexed before the upgrade, until ``moderation.reindex`` has run.
INDEX_VERSION = 2
BAND_FORMAT = 1
BANDS = 20
ROWS = 3
NUM_PERM = BANDS * ROWS
MINHASH_SEED = 1
# Questions sharing buckets that are re-ranked per lookup (most shared buckets first, a
# window counting WINDOW_WEIGHT): enough that at 500 000 questions every labelled
# positive is among them and the top five are those of re-ranking every candidate
# (docs/performance-history.md, «Duplicate detection»).
MAX_LSH_CANDIDATES = 40
# Rows read per bucket on a lookup (see ``_candidates``).
MAX_BUCKET_ROWS = 300
# The score (0..100) from which a candidate is shown to the editor (the editors' threshold).
DUPLICATE_THRESHOLD = 70.0
MAX_CANDIDATES = 5
# Statuses whose questions a new one is compared against: the archive, the intake, the pool
# and everything played («candidates from the archive, the intake and the
# approved pool»). Rejected and withdrawn questions are indexed but not reported.
COMPARED_STATUSES = (
    "archived",
    "received",
    "prechecked",
    "in_review",
    "approved",
    "assigned",
    "played",
    "answered",
    "unanswered",
)

MINHASH_SCHEME = "affine32"  # datasketch 2 hashing scheme (fixed: part of the index format)


@functools.cache
def datasketch_hashing() -> tuple[np.ndarray, np.ndarray, Any]:
    """``(a, b, sha1_hash32)``: datasketch's permutations for ``NUM_PERM``, ``MINHASH_SEED``
    and ``MINHASH_SCHEME`` as two uint32 arrays of ``NUM_PERM``, and its 32-bit SHA-1 word
    hash (:func:`sha1_hash32`). Drawn here as datasketch 2 draws them (``RandomState(seed)``:
    ``a`` odd below 2³², then ``b`` below 2³²; equal, tested) rather than by importing
    datasketch: its package imports scipy, a heavy start for every process that computes a
    signature (each ``sova import``, each of its workers)."""
    gen = np.random.RandomState(MINHASH_SEED)
    a = gen.randint(0, 1 << 31, NUM_PERM, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = gen.randint(0, 1 << 32, NUM_PERM, dtype=np.uint32)
    return a, b, sha1_hash32


def sha1_hash32(data: bytes) -> int:
    """datasketch's ``sha1_hash32``: the first four bytes of the SHA-1 digest, little-endian
    (an int below 2³²)."""
    return int.from_bytes(hashlib.sha1(data).digest()[:4], "little")  # noqa: S324


def shingles(key: str) -> set[bytes]:
    """The word shingles of a matching key: its distinct words, UTF-8 encoded.

    Word sets survive reordered sentences exactly and lose one word per typo.
    """
    return {w.encode("utf-8") for w in key.split()}


# The permuted hash values of the words seen so far: row ``WORD_INDEX[word]`` of
# ``WORD_MATRIX`` (grown by doubling, emptied past ``WORD_CACHE_MAX`` words; a
# vocabulary is far smaller than an archive). Read and written under ``_WORD_LOCK``.
WORD_INDEX: dict[str, int] = {}
WORD_MATRIX = np.zeros((1024, NUM_PERM), dtype=np.uint32)
WORD_CACHE_MAX = 500_000
_WORD_LOCK = threading.Lock()


def _fmix32(h: np.ndarray) -> np.ndarray:
    """The MurmurHash3 32-bit finaliser, element-wise on uint32 (wrapping): datasketch's
    pre-mix of every hash value in its ``affine32`` scheme."""
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0xC2B2AE35)
    return h ^ (h >> np.uint32(16))


def _word_rows(words: list[str]) -> np.ndarray:
    """The permuted hash values of words, ``(len(words), NUM_PERM)`` uint32 (a new array):
    row ``i`` is datasketch ``MinHash.update(words[i].encode("utf-8"))`` alone (SHA-1
    32-bit hash, MurmurHash3 pre-mix, ``a × h + b`` mod 2³²), computed in one vectorised
    step for the words not yet cached, then gathered in one step. Equal to datasketch
    (tested)."""
    global WORD_MATRIX
    with _WORD_LOCK:
        index = WORD_INDEX
        missing = [w for w in dict.fromkeys(words) if w not in index]
        if missing:
            perm_a, perm_b, sha1_hash32 = datasketch_hashing()
            if len(index) + len(missing) > WORD_CACHE_MAX:
                index.clear()
                missing = list(dict.fromkeys(words))
            start, end = len(index), len(index) + len(missing)
            if end > len(WORD_MATRIX):
                grown = np.zeros((max(end, 2 * len(WORD_MATRIX)), NUM_PERM), dtype=np.uint32)
                grown[:start] = WORD_MATRIX[:start]
                WORD_MATRIX = grown
            hv = np.fromiter(
                (sha1_hash32(w.encode("utf-8")) for w in missing),
                dtype=np.uint32,
                count=len(missing),
            )
            WORD_MATRIX[start:end] = _fmix32(hv)[:, None] * perm_a + perm_b
            index.update(zip(missing, range(start, end), strict=True))
        rows = np.fromiter(map(index.__getitem__, words), dtype=np.intp, count=len(words))
        return WORD_MATRIX[rows]


def signature(key: str) -> np.ndarray | None:
    """The MinHash signature (``NUM_PERM`` uint32 values) of a matching key's word set, or
    None for an empty key. Equal to datasketch ``MinHash(num_perm=NUM_PERM, seed=1,
    scheme="affine32").update_batch(shingles(key))``'s ``hashvalues``."""
    words = set(key.split())
    if not words:
        return None
    return _word_rows(list(words)).min(axis=0)


#: Keys per vectorised step of :func:`signatures` (bounds its temporary array to about
#: ``SIGNATURE_CHUNK × 30 words × NUM_PERM × 4`` bytes, 15 MB).
SIGNATURE_CHUNK = 2048


def signatures(keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The MinHash signatures of many matching keys at once: ``(positions, sigs)`` where
    ``positions`` (int64, ascending) are the indices in ``keys`` of the non-empty keys and
    ``sigs`` ``(len(positions), NUM_PERM)`` uint32 their :func:`signature` (equal, tested).
    One gather and one ``np.minimum.reduceat`` per :data:`SIGNATURE_CHUNK` keys instead of
    one ``np.stack`` per key: the index build computes 500 000 of them."""
    positions: list[int] = []
    parts: list[np.ndarray] = []
    for lo in range(0, len(keys), SIGNATURE_CHUNK):
        words: list[str] = []
        starts: list[int] = []
        for i, key in enumerate(keys[lo : lo + SIGNATURE_CHUNK], start=lo):
            distinct = set((key or "").split())
            if distinct:
                positions.append(i)
                starts.append(len(words))
                words.extend(distinct)
        if words:
            parts.append(
                np.minimum.reduceat(_word_rows(words), np.asarray(starts, dtype=np.intp), axis=0)
            )
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros((0, NUM_PERM), dtype=np.uint32)
    return np.asarray(positions, dtype=np.int64), np.concatenate(parts)


_BAND_SALT = np.arange(BANDS, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(
    BAND_FORMAT
)
_ROW_MULT = np.array(
    [0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD6E8FEB86659FD93][:ROWS], dtype=np.uint64
)


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The SplitMix64 finaliser (Steele et al. 2014), element-wise on uint64 (wrapping)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def band_keys(signatures: np.ndarray) -> np.ndarray:
    """LSH bucket keys of signatures ``(n, NUM_PERM)`` uint64 → ``(n, BANDS)`` int64: each
    band's ``ROWS`` values and the band number (and BAND_FORMAT) mixed with SplitMix64.
    Deterministic on every platform (fixed-width wrapping integer arithmetic)."""
    sig = np.asarray(signatures, dtype=np.uint64).reshape(-1, BANDS, ROWS)
    with np.errstate(over="ignore"):
        acc = _BAND_SALT[None, :].copy()
        for r in range(ROWS):
            acc = _splitmix64(acc ^ (sig[:, :, r] * _ROW_MULT[r]))
    return acc.view(np.int64)


#: Words per leading window and the share of the key's words the windows cover.
WINDOW = 5
WINDOW_SPAN = 0.5


def window_keys(key: str) -> list[int]:
    """The leading-window buckets of a matching key: signed 64-bit ints (BLAKE2b-64 of the
    window's offset and words), one per run of ``WINDOW`` words starting at 0, ``WINDOW``,
    2 × ``WINDOW``, … that ends within the first ``max(WINDOW, WINDOW_SPAN × words)``
    words; none for a key shorter than ``WINDOW`` words. Deterministic everywhere.

    Why: «last clause replaced» keeps at least the leading half of the text, so the
    original and the variant share these exact windows even when their word sets do not
    share a MinHash band (13 of the 15 misses were never candidates)."""
    words = key.split()
    end = max(WINDOW, round(len(words) * WINDOW_SPAN))
    out = []
    for start in range(0, end - WINDOW + 1, WINDOW):
        if start + WINDOW > len(words):
            break
        text = f"{start}:" + " ".join(words[start : start + WINDOW])
        digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8, person=b"sova-window")
        out.append(int.from_bytes(digest.digest(), "little", signed=True))
    return out


def _bucket_parts(key: str) -> tuple[list[int], list[int]]:
    """``(bands, windows)``: a matching key's ``BANDS`` LSH band keys and its
    :func:`window_keys` that are not also a band key, each sorted and distinct, signed
    64-bit ints (both empty for an empty key)."""
    sig = signature(key)
    if sig is None:
        return [], []
    bands = {int(v) for v in band_keys(sig[None, :])[0]}
    return sorted(bands), sorted(set(window_keys(key)) - bands)


def buckets(key: str) -> list[int]:
    """The buckets of a matching key: its ``BANDS`` LSH band keys and its
    :func:`window_keys`, signed 64-bit ints, sorted and distinct (empty for an empty key).
    Deterministic across processes and machines."""
    bands, windows = _bucket_parts(key)
    return sorted(bands + windows)


#: The twist score: the leading ``LEAD_SHARE`` of the shorter key weighs ``LEAD_WEIGHT``.
LEAD_SHARE = 0.6
LEAD_WEIGHT = 0.4


def similarity(a: str, b: str) -> float:
    """Similarity 0..100 of two matching keys, as the editor sees it.

    The largest of rapidfuzz ``token_sort_ratio`` (word order ignored: a reordered sentence
    scores 100), ``ratio`` (character edit distance: a typo costs a point or two) and the
    *twist* score :func:`lead_similarity` (an old question with a new last clause).
    ``token_set_ratio`` is not used: a short question whose words all occur in a longer,
    different one would score 100.
    """
    return max(fuzz.token_sort_ratio(a, b), lead_similarity(a, b))


def lead_similarity(a: str, b: str) -> float:
    """The twist score 0..100: ``LEAD_WEIGHT`` × ``ratio`` of the leading ``LEAD_SHARE`` of
    both keys (that share of the shorter key's length) + the rest × ``ratio`` of the whole
    keys — so never below ``ratio`` when the leading parts agree better than the whole.

    Tuned on the labelled set (tests/bench/duplicates.py): every «last clause
    replaced» variant scores ≥ 74.5, while all but three negatives stay below 70.
    Returns ``ratio(a, b)`` when it is the larger (different leading parts)."""
    whole = fuzz.ratio(a, b)
    n = int(min(len(a), len(b)) * LEAD_SHARE)
    if n == 0:
        return whole
    return max(whole, LEAD_WEIGHT * fuzz.ratio(a[:n], b[:n]) + (1 - LEAD_WEIGHT) * whole)


def index_rows(question_id: int, key: str) -> list[dict]:
    """The ``duplicate_bucket`` rows of one question: ``[{"bucket", "question_id"}]``."""
    return [{"bucket": b, "question_id": question_id} for b in buckets(key)]


# ON CONFLICT DO NOTHING (PostgreSQL, SQLite ≥ 3.24): two pre-checks of one question at
# once (a resent task beside the first, `sova seed-demo` beside a running worker) both
# find no rows and both insert them; the second now adds nothing instead of failing on
# the primary key.
_INSERT_QMARK = (
    "INSERT INTO duplicate_bucket (bucket, question_id) VALUES (?, ?) ON CONFLICT DO NOTHING"
)
_INSERT_FORMAT = (
    "INSERT INTO duplicate_bucket (bucket, question_id) VALUES (%s, %s) ON CONFLICT DO NOTHING"
)


def _rows(pairs: list[tuple[int, str]]) -> list[tuple[int, int]]:
    """The ``(bucket, question_id)`` rows of the pairs, sorted by bucket, distinct
    (:func:`_row_arrays` as tuples)."""
    bucket, owner = _row_arrays(pairs)
    return list(zip(bucket.tolist(), owner.tolist(), strict=True))


def _window_arrays(pairs: list[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    """The :func:`window_keys` of every pair as ``(bucket, question_id)`` int64 arrays:
    the digests joined and read by numpy at once (little-endian signed, as
    ``window_keys`` reads each)."""
    blake2b = hashlib.blake2b
    digests: list[bytes] = []
    owners: list[int] = []
    for qid, key in pairs:
        if not key:
            continue
        words = key.split()
        end = min(max(WINDOW, round(len(words) * WINDOW_SPAN)), len(words))
        for start in range(0, end - WINDOW + 1, WINDOW):
            text = f"{start}:" + " ".join(words[start : start + WINDOW])
            digests.append(
                blake2b(text.encode("utf-8"), digest_size=8, person=b"sova-window").digest()
            )
            owners.append(qid)
    bucket = np.frombuffer(b"".join(digests), dtype="<i8").astype(np.int64)
    return bucket, np.asarray(owners, dtype=np.int64)


def _row_arrays(pairs: list[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the pairs as two int64 arrays ``(bucket, question_id)`` sorted by
    bucket then id, vectorised per batch (:func:`signatures`, :func:`band_keys`,
    :func:`_window_arrays`); a question's buckets are distinct but for a 64-bit collision
    of a window with a band, kept once."""
    positions, sigs = signatures([key for _, key in pairs])
    if not len(positions):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    qids = np.asarray([qid for qid, _ in pairs], dtype=np.int64)[positions]
    more, more_owner = _window_arrays(pairs)
    bucket = np.concatenate([band_keys(sigs).reshape(-1), more])
    owner = np.concatenate([np.repeat(qids, BANDS), more_owner])
    order = np.lexsort((owner, bucket))
    bucket, owner = bucket[order], owner[order]
    keep = np.ones(len(bucket), dtype=bool)
    keep[1:] = (bucket[1:] != bucket[:-1]) | (owner[1:] != owner[:-1])
    return bucket[keep], owner[keep]


def _write(connection, pairs: Iterable[tuple[int, str]], replace: bool) -> None:
    """Index ``(question_id, matching_key)`` pairs (``replace``: drop their old rows first).
    Rows go through the DB-API ``executemany`` (tuples, sorted by bucket): the index build
    writes ``BANDS`` rows per question."""
    pairs = list(pairs)
    if not pairs:
        return
    if replace:
        connection.execute(
            delete(DuplicateBucket).where(
                DuplicateBucket.question_id.in_([qid for qid, _ in pairs])
            )
        )
    rows = _rows(pairs)
    if rows:
        sql = _INSERT_QMARK if connection.dialect.paramstyle == "qmark" else _INSERT_FORMAT
        connection.exec_driver_sql(sql, rows)


def row_arrays(pairs: Sequence[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    """The index rows of ``(owner, matching_key)`` pairs as two int64 arrays ``(bucket,
    owner)``, distinct, in ``(bucket, owner)`` order — the rows :func:`_write` writes,
    computed without a database (the archive import's workers compute them with each
    question's place in its batch as the owner, the ids being drawn later)."""
    return _row_arrays(list(pairs))


def insert_new_rows(connection, bucket: np.ndarray, owner: np.ndarray) -> None:
    """Write :func:`row_arrays`' rows (``owner`` now the question ids, so still in
    ``(bucket, question_id)`` order) of questions that have no rows yet: one binary
    ``COPY`` on PostgreSQL (no ``ON CONFLICT`` there: a question's own rows are distinct
    already); elsewhere ``INSERT … ON CONFLICT DO NOTHING`` by the DB-API's
    ``executemany``, as :func:`_write`. Rows of several questions sorted together (the
    primary key's order) make the B-tree's leaf pages be visited once each, in order."""
    if not len(bucket):
        return
    if connection.dialect.name == "postgresql":
        _insert_rows(connection.connection.driver_connection, False, bucket, owner)
        return
    sql = _INSERT_QMARK if connection.dialect.paramstyle == "qmark" else _INSERT_FORMAT
    connection.exec_driver_sql(sql, list(zip(bucket.tolist(), owner.tolist(), strict=True)))


#: New questions in this status are indexed by their pre-check (:func:`ensure_indexed`),
#: not by the flush hook: the viewer's request stays short.
INTAKE_STATUS = "received"


def ensure_indexed(question_id: int) -> bool:
    """Index question ``question_id`` unless it already has buckets (idempotent: a resent
    pre-check adds nothing). Flushes only; the caller commits. Returns True when rows
    were written; False when the question is gone, already indexed or has no key.

    Committed *before* the duplicate lookup of the same pre-check: of two near-identical
    questions pre-checked at the same moment, the later lookup always sees the other.
    """
    # FOR KEY SHARE, the lock a foreign key's check takes (PostgreSQL; SQLite's writer
    # holds the database): the index has no foreign key, and a delete of the question
    # committed between this read and the insert would leave rows of no question.
    key = db.session.scalar(
        select(Question.matching_key)
        .where(Question.id == question_id)
        .with_for_update(read=True, key_share=True)
    )
    if not key or signature(key) is None:
        return False
    exists = db.session.scalar(
        select(DuplicateBucket.question_id)
        .where(DuplicateBucket.question_id == question_id)
        .limit(1)
    )
    if exists is not None:
        return False
    db.session.flush()
    _write(db.session.connection(), [(question_id, key)], replace=False)
    return True


def index_missing(first_id: int, last_id: int) -> int:
    """Index the questions with ``first_id ≤ id ≤ last_id`` that have no rows yet, as the
    archive import indexes them (:func:`row_arrays` of their matching keys): the work a
    ``sova import`` hands to its own index writer and owes when that writer did not finish
    (the task ``moderation.index_questions``). Idempotent: a question with rows is left
    as it is, so a second run, or a run beside the writer that commits first, adds
    nothing. The questions are read ``FOR KEY SHARE`` (the lock a foreign key's check
    takes), as in :func:`ensure_indexed`. Flushes only; the caller commits. Returns how many
    questions were indexed."""
    db.session.flush()
    indexed = select(DuplicateBucket.question_id).where(DuplicateBucket.question_id == Question.id)
    pairs = [
        (qid, key or "")
        for qid, key in db.session.execute(
            select(Question.id, Question.matching_key)
            .where(Question.id.between(first_id, last_id), ~indexed.exists())
            .order_by(Question.id)
            .with_for_update(read=True, key_share=True)
        )
    ]
    _write(db.session.connection(), pairs, replace=False)
    return len(pairs)


@event.listens_for(Session, "after_flush")
def _index_flushed_questions(session: Session, _context) -> None:
    """Keep the index in step with the questions, in the same transaction: new questions
    (but viewers' new ``received`` ones, left to :func:`ensure_indexed`) are indexed, a
    changed matching key is re-indexed (a deleted question's rows go with it: the trigger
    ``duplicate_bucket_question_deleted``)."""
    new = [
        (o.id, o.matching_key)
        for o in session.new
        if isinstance(o, Question) and o.status != INTAKE_STATUS
    ]
    changed = []
    for o in session.dirty:
        if isinstance(o, Question) and o not in session.new:
            hist = inspect(o).attrs.matching_key.history
            if hist.added or hist.deleted:
                changed.append((o.id, o.matching_key))
    if new or changed:
        connection = session.connection()
        _write(connection, new, replace=False)
        _write(connection, changed, replace=True)
    _sync_fulltext(session)


def _sync_fulltext(session: Session) -> None:
    """SQLite only: keep the FTS5 table ``question_fts`` (rowid = question id; columns text,
    answer) in step with new and edited questions (a deleted question's row goes with it
    however it is deleted: the trigger ``question_fts_question_deleted``). PostgreSQL
    searches an expression index on the table itself and needs nothing here."""
    touched = [o for o in (*session.new, *session.dirty) if isinstance(o, Question)]
    if not touched:
        return
    connection = session.connection()
    if connection.dialect.name != "sqlite":
        return
    for o in touched:
        state = inspect(o)
        if o in session.dirty and not (
            state.attrs.text.history.has_changes() or state.attrs.answer.history.has_changes()
        ):
            continue
        connection.exec_driver_sql("DELETE FROM question_fts WHERE rowid = ?", (o.id,))
        connection.exec_driver_sql(
            "INSERT INTO question_fts (rowid, text, answer) VALUES (?, ?, ?)",
            (o.id, o.text or "", o.answer or ""),
        )


#: The weight of a shared leading window against a shared band in the candidates' order:
#: five equal words at the same offset say more than three equal MinHash values (often
#: common words). With 2, the labelled positives rank at most 10th among 500 000
#: questions (most shared buckets first), against 33rd with 1.
WINDOW_WEIGHT = 2


@functools.lru_cache(maxsize=256)
def _candidates_sql(
    mark: str, bands: int, windows: int, exclude: bool, statuses: int | None
) -> str:
    """The candidate statement for ``bands`` band and ``windows`` window bucket parameters
    (then the excluded id when ``exclude``, the limit, and ``statuses`` status parameters,
    None: no status filter), with the driver's placeholder ``mark``. Cached: a lookup has
    20–30 buckets, and formatting the statement each time cost a fifth of its own run."""
    # Each bucket gives at most MAX_BUCKET_ROWS questions (smallest ids first): a bucket
    # shared by thousands (a common opening, a band of common words) says little, and
    # reading all its rows made the slowest lookups.
    # Only placeholders and integer constants are formatted in; every value is bound.
    arms = " UNION ALL ".join(
        f"SELECT question_id, {1 if i < bands else WINDOW_WEIGHT:d} AS w FROM"  # noqa: S608
        f" (SELECT question_id FROM duplicate_bucket WHERE bucket = {mark}"
        f" LIMIT {MAX_BUCKET_ROWS:d}) AS b{i}"
        for i in range(bands + windows)
    )
    skip = f" WHERE question_id <> {mark}" if exclude else ""
    where = ""
    if statuses is not None:
        where = f" WHERE q.status IN ({', '.join([mark] * statuses)})"
    return (
        "SELECT q.id, q.matching_key, q.status FROM (SELECT question_id, sum(w) AS shared"  # noqa: S608
        f" FROM ({arms}) AS u{skip}"
        f" GROUP BY question_id ORDER BY shared DESC, question_id LIMIT {mark}) AS c"
        f" JOIN question AS q ON q.id = c.question_id{where}"
        " ORDER BY c.shared DESC, c.question_id"
    )


def _candidates(
    key: str, exclude_id: int | None, statuses: Sequence[str] | None, limit: int
) -> list[tuple[int, str, str]]:
    """``(question_id, matching_key, status)`` of the ``limit`` questions sharing most
    buckets with ``key`` (a shared window counts ``WINDOW_WEIGHT`` bands; ties: smaller id
    first; ``exclude_id`` left out), then those in ``statuses`` (None: any) — one
    statement (:func:`_candidates_sql`), run on the DB-API cursor of the session's
    connection (in its transaction) and fetched in one ``fetchall``: SQLAlchemy's result
    fetched row by row cost as much as the join."""
    bands, windows = _bucket_parts(key)
    if not bands:
        return []
    connection = db.session.connection()
    mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    params: list[Any] = [*bands, *windows]
    if exclude_id is not None:
        params.append(exclude_id)
    params.append(limit)
    if statuses is not None:
        params.extend(statuses)
    sql = _candidates_sql(
        mark,
        len(bands),
        len(windows),
        exclude_id is not None,
        None if statuses is None else len(statuses),
    )
    cursor = connection.connection.cursor()
    try:
        cursor.execute(sql, tuple(params))
        rows = cursor.fetchall()
    finally:
        cursor.close()
    return [(r[0], r[1], r[2]) for r in rows]


def scores(key: str, others: Sequence[str], cutoff: float = 0.0) -> np.ndarray:
    """:func:`similarity` of ``key`` with each of ``others`` (float64, 0..100; equal to
    the loop), where it is at least ``cutoff``; 0.0 where it is below. rapidfuzz
    ``cdist`` / ``cpdist``, one call per measure, each with the ``score_cutoff`` that lets
    it stop early: the twist score reaches ``cutoff`` only if ``ratio`` reaches
    ``(cutoff − 100 × LEAD_WEIGHT) / (1 − LEAD_WEIGHT)``, and only those pairs get their
    leading parts compared."""
    if not others:
        return np.zeros(0)
    whole_cut = max(0.0, (cutoff - 100 * LEAD_WEIGHT) / (1 - LEAD_WEIGHT) - 1e-9)
    sort = process.cdist(
        [key], others, scorer=fuzz.token_sort_ratio, dtype=np.float64, score_cutoff=cutoff
    )[0]
    whole = process.cdist(
        [key], others, scorer=fuzz.ratio, dtype=np.float64, score_cutoff=whole_cut
    )[0]
    best = np.maximum(sort, whole)
    todo = [i for i in np.flatnonzero(whole > 0).tolist() if len(key) and len(others[i])]
    if todo:
        cut = [int(min(len(key), len(others[i])) * LEAD_SHARE) for i in todo]
        lead = process.cpdist(
            [key[:n] for n in cut],
            [others[i][:n] for i, n in zip(todo, cut, strict=True)],
            scorer=fuzz.ratio,
            dtype=np.float64,
        )
        twist = np.where(
            np.asarray(cut) > 0, LEAD_WEIGHT * lead + (1 - LEAD_WEIGHT) * whole[todo], 0.0
        )
        best[todo] = np.maximum(best[todo], twist)
    best[best < cutoff] = 0.0
    return best


def rank(
    key: str,
    candidates: Sequence[tuple[int, str, str]],
    threshold: float = DUPLICATE_THRESHOLD,
    limit: int = MAX_CANDIDATES,
) -> list[dict]:
    """Re-rank ``(question_id, matching_key, status)`` candidates against ``key``.

    Returns ``[{"question_id": int, "score": float 0..100 (1 place), "status": str}]`` with
    score ≥ ``threshold``, best first (ties: smaller id first), at most ``limit``.
    """
    # round(x, 1) ≥ threshold needs x ≥ threshold − 0.05: nothing below is worth computing
    cutoff = threshold - 0.05 - 1e-9
    values = scores(key, [other or "" for _, other, _ in candidates], cutoff)
    scored: list[dict[str, Any]] = []
    for i in np.flatnonzero(values >= cutoff).tolist():  # the few worth rounding
        score = round(float(values[i]), 1)
        if score >= threshold:
            qid, _, status = candidates[i]
            scored.append({"question_id": qid, "score": score, "status": status})
    scored.sort(key=lambda d: (-d["score"], d["question_id"]))
    return scored[:limit]


def find_duplicates(
    key: str,
    exclude_id: int | None = None,
    statuses: Sequence[str] = COMPARED_STATUSES,
    threshold: float = DUPLICATE_THRESHOLD,
    limit: int = MAX_CANDIDATES,
) -> list[dict]:
    """Ranked duplicates of a matching key among indexed questions in ``statuses``
    (shape of :func:`rank`): the ``MAX_LSH_CANDIDATES`` questions sharing most buckets
    (``exclude_id`` left out), those in ``statuses`` re-ranked. One statement."""
    found = _candidates(key, exclude_id, list(statuses), MAX_LSH_CANDIDATES)
    return rank(key, found, threshold=threshold, limit=limit)


def rebuild_index(batch: int = 20000) -> int:
    """Rebuild the whole index from the questions' matching keys (after INDEX_VERSION
    changes, after the archive's bulk import). Flushes only; the caller commits. Returns
    the number of questions indexed.

    The keys are read per batch of ``batch`` questions (keyset order by id, on the DB-API
    cursor) and their rows computed vectorised (:func:`_row_arrays`); every row is kept
    in memory as two int64 arrays (550 000 questions: 12 M rows, 190 MB) and put in
    ``(bucket, question_id)`` order once, so the primary key's B-tree is written in order,
    page after page, instead of a random insert per row. The table is then replaced in
    the caller's transaction, its indexes made after the rows by one sort each
    (:func:`_replace_sqlite`, :func:`_replace_postgresql`): a crash or a rollback leaves
    the old table and its rows, and a lookup in another transaction sees the old index
    until the commit, the new one after (never a half-built one)."""
    db.session.flush()
    connection = db.session.connection()
    sqlite = connection.dialect.name == "sqlite"
    raw = connection.connection.driver_connection
    buckets_, owners = [], []
    done, last = 0, 0
    while pairs := _read_keys(raw, sqlite, last, batch):
        bucket, owner = _row_arrays(pairs)
        buckets_.append(bucket)
        owners.append(owner)
        done += len(pairs)
        last = pairs[-1][0]
    bucket = np.concatenate(buckets_) if buckets_ else np.zeros(0, dtype=np.int64)
    owner = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)
    # Each batch is in (bucket, id) order and holds larger ids than the one before: a
    # stable sort by bucket alone (timsort merging the sorted runs) gives (bucket, id).
    order = np.argsort(bucket, kind="stable")
    bucket, owner = bucket[order], owner[order]
    del order
    if sqlite:
        _replace_sqlite(connection, raw, bucket, owner)
    else:
        _replace_postgresql(connection, raw, bucket, owner)
    return done


def _replace_sqlite(connection, raw, bucket: np.ndarray, owner: np.ndarray) -> None:
    """SQLite: drop ``duplicate_bucket``, create it again from its own ``CREATE TABLE``
    text, insert the sorted rows, create its indexes again from their own text. SQLite's
    DDL is transactional, and in WAL mode readers keep the last committed schema and rows
    until the commit. Dropping first lets the new rows reuse the old pages (the file does
    not grow by a second index). A 256 MiB page cache for this connection keeps the
    B-trees being written in memory. The table made again is the one the migrations made
    (since ``0029_duplicate_bucket_sqlite``: ``WITHOUT ROWID``, no foreign key, so the
    insert looks up no question); the trigger deleting a question's rows belongs to
    ``question`` and is not dropped with it."""
    connection.exec_driver_sql("PRAGMA cache_size = -262144")
    found = connection.exec_driver_sql(
        "SELECT type, sql FROM sqlite_master WHERE tbl_name = 'duplicate_bucket'"
        " AND sql IS NOT NULL ORDER BY type = 'index'"
    ).all()
    table_sql = [sql for kind, sql in found if kind == "table"]
    index_sql = [sql for kind, sql in found if kind == "index"]
    connection.exec_driver_sql("DROP TABLE duplicate_bucket")
    for sql in table_sql:
        connection.exec_driver_sql(sql)
    if len(bucket):
        cursor = raw.cursor()
        try:
            cursor.executemany(
                "INSERT INTO duplicate_bucket (bucket, question_id) VALUES (?, ?)",
                zip(bucket.tolist(), owner.tolist(), strict=True),
            )
        finally:
            cursor.close()
    for sql in index_sql:
        connection.exec_driver_sql(sql)


#: PostgreSQL: the table the rows are built in, then renamed to ``duplicate_bucket``.
_PG_BUILD = "duplicate_bucket_build"
#: Rows per binary ``COPY`` chunk (16 MB of COPY data a chunk).
_COPY_CHUNK = 1_000_000


def _replace_postgresql(connection, raw, bucket: np.ndarray, owner: np.ndarray) -> None:
    """PostgreSQL: the sorted rows by binary ``COPY`` into a new table without indexes,
    then its primary key and its ``question_id`` index (each one sort), the old table
    dropped and the new one renamed with the names the schema has
    (``duplicate_bucket_pkey``, ``ix_duplicate_bucket_question_id``). Until the ``DROP``,
    lookups read the old table undisturbed; from it to the commit (the renames: moments)
    they wait for its lock and then read the new table. The table has no foreign key
    (migration ``0048_duplicate_bucket_trigger``): the trigger deleting a deleted
    question's rows belongs to ``question`` and is not dropped with the table, and rows
    read from ``question`` in this transaction have their question."""
    run = connection.exec_driver_sql
    run(f"DROP TABLE IF EXISTS {_PG_BUILD}")
    run(f"CREATE TABLE {_PG_BUILD} (bucket BIGINT NOT NULL, question_id INTEGER NOT NULL)")
    cursor = raw.cursor()
    try:
        for lo in range(0, len(bucket), _COPY_CHUNK):
            with cursor.copy(
                f"COPY {_PG_BUILD} (bucket, question_id) FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.write(_copy_rows(bucket[lo : lo + _COPY_CHUNK], owner[lo : lo + _COPY_CHUNK]))
    finally:
        cursor.close()
    run(
        f"ALTER TABLE {_PG_BUILD} ADD CONSTRAINT {_PG_BUILD}_pkey PRIMARY KEY (bucket, question_id)"
    )
    run(f"CREATE INDEX {_PG_BUILD}_qid ON {_PG_BUILD} (question_id)")
    run("DROP TABLE duplicate_bucket")
    run(f"ALTER TABLE {_PG_BUILD} RENAME TO duplicate_bucket")
    run(f"ALTER TABLE duplicate_bucket RENAME CONSTRAINT {_PG_BUILD}_pkey TO duplicate_bucket_pkey")
    run(f"ALTER INDEX {_PG_BUILD}_qid RENAME TO ix_duplicate_bucket_question_id")


def _read_keys(raw, sqlite: bool, after: int, batch: int) -> list[tuple[int, str]]:
    """``(id, matching_key)`` of the next ``batch`` questions after id ``after``, on the
    DB-API cursor and fetched at once."""
    mark = "?" if sqlite else "%s"
    cursor = raw.cursor()
    try:
        cursor.execute(
            f"SELECT id, matching_key FROM question WHERE id > {mark}"  # noqa: S608
            f" ORDER BY id LIMIT {mark}",
            (after, batch),
        )
        return cursor.fetchall()
    finally:
        cursor.close()


def _insert_rows(raw, sqlite: bool, bucket: np.ndarray, owner: np.ndarray) -> None:
    """Insert distinct new rows: the DB-API's ``executemany`` on SQLite, one binary
    ``COPY`` built by numpy on PostgreSQL (no Python step per row)."""
    if not len(bucket):
        return
    cursor = raw.cursor()
    try:
        if sqlite:
            cursor.executemany(
                "INSERT INTO duplicate_bucket (bucket, question_id) VALUES (?, ?)",
                zip(bucket.tolist(), owner.tolist(), strict=True),
            )
        else:
            with cursor.copy(_COPY_BINARY) as copy:
                copy.write(_copy_rows(bucket, owner))
    finally:
        cursor.close()


#: PostgreSQL: binary COPY of ``(int8 bucket, int4 question_id)`` rows.
_COPY_BINARY = "COPY duplicate_bucket (bucket, question_id) FROM STDIN (FORMAT BINARY)"
_PGCOPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # signature, flags 0, no extension
_PGCOPY_ROW = np.dtype(
    [("fields", ">i2"), ("blen", ">i4"), ("bucket", ">i8"), ("qlen", ">i4"), ("qid", ">i4")]
)


def _copy_rows(bucket: np.ndarray, owner: np.ndarray) -> bytes:
    """The rows in PostgreSQL's binary COPY format (header, one tuple per row: two fields,
    each its length and its big-endian value; trailer), built by numpy in one step."""
    rows = np.empty(len(bucket), dtype=_PGCOPY_ROW)
    rows["fields"], rows["blen"], rows["qlen"] = 2, 8, 4
    rows["bucket"], rows["qid"] = bucket, owner
    return _PGCOPY_HEADER + rows.tobytes() + b"\xff\xff"
