"""The duplicate index (MinHash LSH in the database, re-ranked with rapidfuzz) and its
quality on the labelled set built from ../shared/data/chgk/."""

from __future__ import annotations

import numpy as np
import pytest

from webapp.domain.text import matching_key
from webapp.extensions import db
from webapp.moderation import duplicates
from webapp.moderation.models import DuplicateBucket, ModerationReport
from webapp.moderation.operations import precheck
from webapp.submissions.models import Question
from webapp.submissions.operations import create_question
from webapp.tasks.outbox import commit

ARCHIVE = (
    "В начале XI века языческое святилище на острове Рюген было посвящено богу "
    "Свентовиту. Назовите остров, где стоял его храм."
)


def add(text: str, status: str = "archived", answer: str = "Рюген") -> Question:
    q = create_question(
        {"question": text, "answer": answer, "authors": [("Ольга Петрова", "Витебск", None)]},
        "archive",
        status=status,
    )
    commit()
    return q


def buckets_of(qid: int) -> list[int]:
    return sorted(
        db.session.scalars(
            db.select(DuplicateBucket.bucket).where(DuplicateBucket.question_id == qid)
        )
    )


def test_buckets_are_deterministic_and_banded():
    key = matching_key(ARCHIVE)
    assert duplicates.buckets(key) == duplicates.buckets(key)
    # 20 bands and the two leading windows of the key's 19 words (words 0-4 and 5-9)
    assert len(duplicates.buckets(key)) == duplicates.BANDS + 2 == 22
    assert duplicates.buckets("") == []
    assert duplicates.NUM_PERM == 60


def test_window_keys_cover_the_leading_half():
    key = matching_key(ARCHIVE)
    assert len(key.split()) == 19  # windows within the first round(9.5) = 10 words
    windows = duplicates.window_keys(key)
    assert windows == [167791917167250464, -4542488046862666307]
    assert set(windows) <= set(duplicates.buckets(key))
    # a new last clause keeps the leading windows
    twist = matching_key(ARCHIVE.replace("где стоял его храм", "куда его перенесли позже"))
    assert duplicates.window_keys(twist) == windows
    assert duplicates.window_keys("четыре слова всего тут") == []
    assert len(duplicates.window_keys("пять слов ровно здесь стоят")) == 1


def test_index_written_with_the_question_and_kept_in_step(app):
    q = add(ARCHIVE)
    assert buckets_of(q.id) == sorted(duplicates.buckets(q.matching_key))
    q.matching_key = matching_key("Совсем другой текст про Новгород и Ярослава Мудрого")
    commit()
    assert buckets_of(q.id) == sorted(duplicates.buckets(q.matching_key))
    db.session.delete(q)
    commit()
    assert db.session.scalar(db.select(db.func.count()).select_from(DuplicateBucket)) == 0


@pytest.mark.parametrize(
    ("variant", "score"),
    [
        # capital-vowel stress, U+0301, NBSP, the HTML entity &#232; and a Cyrillic С in Latin
        (
            "В начале XI века языческое святилище на острове Рюген было посвящено богу "
            "СвентовИту. Назовите остров, где стоял его хра\u0301м.",
            100.0,
        ),
        (
            "В\u00a0начале XI века языческое святилище на острове Рюген было посвящено богу "
            "Свентовиту. Назовите остров, где стоял его храм &#232;.",
            99.5,  # the twist score: the leading 60 % agree exactly (99.2 with the earlier index)
        ),
        (
            "Назовите остров, где стоял его храм. В начале XI века языческое святилище на "
            "острове Рюген было посвящено богу Свентовиту.",
            100.0,
        ),
        (
            "В начале XI века языческое святилище на oстрове Рюген было посвящено богу "
            "Свентовиту. Назовите остров, где стоял его храм.",
            100.0,
        ),  # Latin o
    ],
)
def test_variants_found_with_exact_scores(app, variant, score):
    q = add(ARCHIVE)
    other = add("Какой город основал Ярослав Мудрый на Волге?", answer="Ярославль")
    found = duplicates.find_duplicates(matching_key(variant))
    assert found == [{"question_id": q.id, "score": score, "status": "archived"}]
    assert other.id not in [d["question_id"] for d in found]


def test_a_new_last_clause_is_found_through_the_leading_windows(app):
    """An old question with a new twist: no MinHash band in common, ratio 66.7
    and token_sort_ratio 63.1 (below 70), found by its leading windows with the twist
    score 0.4 × 100 (leading 60 %) + 0.6 × 66.7 = 80.0."""
    q = add(ARCHIVE)
    twist = matching_key(
        ARCHIVE.split(". ")[0] + ". Какой датский король разрушил его в 1168 году вместе с "
        "городом Аркона, и как звали епископа, который освятил церковь на месте храма?"
    )
    bands = {int(v) for v in duplicates.band_keys(duplicates.signature(twist)[None, :])[0]}
    assert not bands & set(buckets_of(q.id))
    assert duplicates.similarity(twist, q.matching_key) == 80.0
    assert duplicates.find_duplicates(twist) == [
        {"question_id": q.id, "score": 80.0, "status": "archived"}
    ]


def test_rejected_questions_are_indexed_but_not_reported(app):
    q = add(ARCHIVE, status="received")
    precheck(q.id)
    from webapp.moderation.operations import decide

    decide(q, "reject", None)
    commit()
    assert buckets_of(q.id)
    assert duplicates.find_duplicates(matching_key(ARCHIVE)) == []


def test_precheck_stores_ranked_candidates(app):
    old = add(ARCHIVE)
    new = add(ARCHIVE.replace("Рюген", "Рюґен"), status="received")
    precheck(new.id)
    commit()
    report = db.session.scalar(db.select(ModerationReport).filter_by(question_id=new.id))
    assert report.version == 5  # PRECHECK_VERSION (5: the one language reading)
    assert report.duplicates == [{"question_id": old.id, "score": 99.2, "status": "archived"}]


def test_a_new_process_uses_the_persisted_index(make_app, app):
    qid = add(ARCHIVE).id
    db.session.remove()  # this process ends its transaction (SQLite: one writer)
    second = make_app(WTF_CSRF_ENABLED=False)  # a restarted worker on the same database
    with second.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(DuplicateBucket)) == 22
        found = duplicates.find_duplicates(matching_key(ARCHIVE))
        assert found == [{"question_id": qid, "score": 100.0, "status": "archived"}]


@pytest.mark.slow
def test_quality_on_the_labelled_set(app, shared_dir):
    """recall ≥ 0.995 and precision ≥ 0.995 at the editors' threshold (70), the reworded
    last clause included."""
    from tests.bench.duplicates import insert_archive, labelled_pairs, quality

    corpus, pairs = labelled_pairs(shared_dir / "data" / "chgk")
    assert (len(corpus), len(pairs)) == (1899, 2390)
    ids = insert_archive([c["text"] for c in corpus])
    duplicates.rebuild_index()
    commit()
    result = quality(pairs, ids)
    assert result["threshold"] == 70.0
    assert (result["positives"], result["negatives"]) == (1195, 1195)
    assert result["recall"] >= 0.995 and result["precision"] >= 0.995, result
    assert (result["recall"], result["precision"]) == (1.0, 0.9975)
    assert result["errors_by_kind"] == {"nearest": 3}


def test_signature_equals_datasketch_update_batch():
    from datasketch import MinHash

    for text in (ARCHIVE, "одно", "Какой город основал Ярослав Мудрый на Волге?"):
        key = matching_key(text)
        mh = MinHash(num_perm=60, seed=1, scheme="affine32")
        mh.update_batch(list(duplicates.shingles(key)))
        assert duplicates.signature(key).tolist() == mh.hashvalues.tolist()
    assert duplicates.signature("") is None


def test_the_permutations_and_word_hash_are_datasketchs():
    """Drawn without importing datasketch (its scipy import weighs on every process that
    hashes): its own arrays and hash, value for value."""
    from datasketch import MinHash
    from datasketch.hashfunc import sha1_hash32

    a, b, word_hash = duplicates.datasketch_hashing()
    theirs = MinHash(num_perm=duplicates.NUM_PERM, seed=1, scheme="affine32").permutations
    assert a.dtype == b.dtype == "uint32"
    assert a.tolist() == theirs[0].tolist() and b.tolist() == theirs[1].tolist()
    for word in ("", "сова", "Ёж", "x" * 1000, "слово\u0301"):
        data = word.encode("utf-8")
        assert word_hash(data) == sha1_hash32(data)


def test_batched_signatures_equal_the_single_ones():
    keys = [matching_key(ARCHIVE), "", "одно", "  ", "Какой город основал Ярослав Мудрый"]
    keys += [f"слово{i} и ещё {i % 7} слов" for i in range(duplicates.SIGNATURE_CHUNK + 3)]
    positions, sigs = duplicates.signatures(keys)
    expected = [i for i, k in enumerate(keys) if duplicates.signature(k) is not None]
    assert positions.tolist() == expected
    assert len(expected) == len(keys) - 2  # the two blank keys have no signature
    assert sigs.dtype == "uint32" and sigs.shape == (len(expected), duplicates.NUM_PERM)
    for i, sig in zip(expected, sigs, strict=True):
        assert sig.tolist() == duplicates.signature(keys[i]).tolist()
    assert duplicates.signatures(["", " "])[0].tolist() == []


def _bucket_indexes() -> list[str]:
    return db.session.scalars(
        db.text(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'duplicate_bucket'"
            " AND sql IS NOT NULL"
        )
    ).all()


def test_rebuild_restores_the_question_id_index_and_rolls_back_whole(app):
    q = add(ARCHIVE)
    other = add("Какой город основал Ярослав Мудрый на Волге?", answer="Ярославль")
    expected = {qid: buckets_of(qid) for qid in (q.id, other.id)}
    assert _bucket_indexes() == ["ix_duplicate_bucket_question_id"]
    assert duplicates.rebuild_index() == 2
    commit()
    assert _bucket_indexes() == ["ix_duplicate_bucket_question_id"]
    assert {qid: buckets_of(qid) for qid in (q.id, other.id)} == expected
    # a rebuild that does not commit leaves the old index and its rows
    db.session.execute(db.update(Question).values(matching_key="совсем другой ключ вопроса"))
    db.session.execute(db.delete(DuplicateBucket))  # the keys change behind the flush hook
    duplicates.rebuild_index()
    assert buckets_of(q.id) == duplicates.buckets("совсем другой ключ вопроса")
    db.session.rollback()
    assert _bucket_indexes() == ["ix_duplicate_bucket_question_id"]
    assert {qid: buckets_of(qid) for qid in (q.id, other.id)} == expected


def test_word_cache_emptied_when_full_keeps_signatures_exact(monkeypatch):
    key = matching_key(ARCHIVE)
    expected = duplicates.signature(key).tolist()
    # a cache of 25 words: the 19 words of the key fit, the next key's overflow it
    monkeypatch.setattr(duplicates, "WORD_CACHE_MAX", 25)
    monkeypatch.setattr(duplicates, "WORD_INDEX", {})  # restored with its own matrix
    monkeypatch.setattr(duplicates, "WORD_MATRIX", np.zeros((4, duplicates.NUM_PERM), "uint32"))
    assert duplicates.signature(key).tolist() == expected
    other = "Какой город основал Ярослав Мудрый на Волге в одиннадцатом веке"
    assert duplicates.signature(matching_key(other)) is not None
    assert len(duplicates.WORD_INDEX) <= 25
    assert duplicates.signature(key).tolist() == expected
    positions, sigs = duplicates.signatures([key, matching_key(other), key])
    assert positions.tolist() == [0, 1, 2]
    assert sigs[0].tolist() == sigs[2].tolist() == expected


def _index_rows() -> list[tuple[int, int]]:
    return sorted(db.session.execute(db.text("SELECT bucket, question_id FROM duplicate_bucket")))


def _rebuild_keeps_the_index() -> None:
    """300 generated archive questions (every tenth a near copy of an earlier one) and a
    few made by the ORM: the rows the import and the flush hook wrote, those a rebuild
    writes in batches of 64, and each question's own :func:`duplicates.buckets` are the
    same rows; every lookup answers the same before and after."""
    from tests.scale_data import archive_packet
    from webapp.domain.packets import parse_packet
    from webapp.moderation.bulk_import import import_archive

    import_archive(parse_packet(archive_packet(300, seed=4)), origin="a.4s")
    add(ARCHIVE)
    add("Какой город основал Ярослав Мудрый на Волге?", answer="Ярославль")
    commit()
    keys = dict(db.session.execute(db.select(Question.id, Question.matching_key)).all())
    expected = sorted((b, qid) for qid, key in keys.items() for b in duplicates.buckets(key))
    assert _index_rows() == expected and len(expected) > 20 * len(keys)
    probes = [keys[qid] for qid in sorted(keys)[::7]]
    before = [duplicates.find_duplicates(key) for key in probes]
    assert sum(len(found) > 1 for found in before) >= 3  # the near copies are found
    assert duplicates.rebuild_index(batch=64) == len(keys) == 302
    commit()
    assert _index_rows() == expected
    assert [duplicates.find_duplicates(key) for key in probes] == before


def test_rebuild_writes_the_rows_each_question_has(app):
    _rebuild_keeps_the_index()


def test_rebuild_writes_the_rows_each_question_has_on_postgresql(pg_app):
    _rebuild_keeps_the_index()


def _bucket_schema() -> list[str]:
    """The indexes and constraints of ``duplicate_bucket`` by name (sorted)."""
    if db.session.connection().dialect.name == "sqlite":
        return sorted(
            db.session.scalars(
                db.text(
                    "SELECT coalesce(sql, name) FROM sqlite_master"
                    " WHERE tbl_name = 'duplicate_bucket'"
                )
            )
        )
    return sorted(
        db.session.scalars(
            db.text(
                "SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint"
                " WHERE conrelid = 'duplicate_bucket'::regclass"
                " UNION ALL SELECT indexdef FROM pg_indexes WHERE tablename = 'duplicate_bucket'"
            )
        )
    )


def _rebuild_swaps_whole_or_not_at_all() -> None:
    """A rebuild that is rolled back leaves the old rows and the table as it was; while it
    runs another connection reads the old rows (SQLite) or waits for the swap (PostgreSQL:
    the lock of the dropped table), never a half-built index; committed, its rows are those
    the incremental path (import, flush hook) writes for the same keys, and the table
    keeps its indexes, constraints and the cascade from ``question``."""
    from tests.scale_data import archive_packet
    from webapp.domain.packets import parse_packet
    from webapp.moderation.bulk_import import import_archive

    import_archive(parse_packet(archive_packet(200, seed=9)), origin="a.4s")
    add(ARCHIVE)
    commit()
    schema = _bucket_schema()
    incremental = set(_index_rows())
    keys = dict(db.session.execute(db.select(Question.id, Question.matching_key)).all())
    assert incremental == {(b, qid) for qid, key in keys.items() for b in duplicates.buckets(key)}
    # the keys change behind the flush hook: a rebuild writes other rows
    db.session.execute(
        db.update(Question).values(matching_key=Question.matching_key + " и ещё слово")
    )
    assert duplicates.rebuild_index(batch=50) == 201
    rebuilt = set(_index_rows())
    assert rebuilt != incremental
    assert rebuilt == {
        (b, qid) for qid, key in keys.items() for b in duplicates.buckets(key + " и ещё слово")
    }
    other = db.engine.raw_connection()  # a reader of its own (no BEGIN IMMEDIATE)
    try:
        cursor = other.cursor()
        if db.engine.dialect.name == "sqlite":
            cursor.execute("SELECT bucket, question_id FROM duplicate_bucket")
            assert set(map(tuple, cursor.fetchall())) == incremental
        else:
            cursor.execute("SET lock_timeout = '200ms'")
            with pytest.raises(Exception, match="lock timeout"):
                cursor.execute("SELECT count(*) FROM duplicate_bucket")
    finally:
        other.close()
    db.session.rollback()
    assert set(_index_rows()) == incremental
    assert _bucket_schema() == schema
    # committed: the same rows as the incremental path, the same schema, the cascade
    assert duplicates.rebuild_index(batch=64) == 201
    commit()
    assert set(_index_rows()) == incremental
    assert _bucket_schema() == schema
    db.session.execute(db.delete(Question).where(Question.id == max(keys)))
    commit()
    assert {qid for _, qid in _index_rows()} == set(keys) - {max(keys)}


def test_rebuild_swaps_whole_or_not_at_all(app):
    _rebuild_swaps_whole_or_not_at_all()


def test_rebuild_swaps_whole_or_not_at_all_on_postgresql(pg_app):
    _rebuild_swaps_whole_or_not_at_all()


def _sqlite_bucket_definition() -> tuple[str, list[str]]:
    """``duplicate_bucket``'s ``CREATE TABLE`` text and the triggers on ``question``."""
    table = db.session.scalar(
        db.text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'duplicate_bucket'")
    )
    triggers = db.session.scalars(
        db.text(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'question'"
            " ORDER BY name"
        )
    ).all()
    return table, triggers


def test_sqlite_index_has_a_trigger_for_the_cascade_and_keeps_it_through_rebuilds(app):
    """SQLite: ``duplicate_bucket`` has no foreign key (the rebuild's insert looks up no
    question); deleting a question deletes its rows by the trigger, before and after a
    rebuild, which keeps the table's definition and the trigger; the flush hook, the
    archive import's ``insert_new_rows`` and the pre-check's ``ensure_indexed`` still write."""
    from tests.scale_data import archive_packet
    from webapp.domain.packets import parse_packet
    from webapp.moderation.bulk_import import import_archive

    table, triggers = _sqlite_bucket_definition()
    assert "FOREIGN KEY" not in table.upper() and table.endswith(") WITHOUT ROWID")
    # the index's trigger, beside the full-text table's (migration 0050)
    assert triggers == ["duplicate_bucket_question_deleted", "question_fts_question_deleted"]
    assert db.session.scalar(db.text("PRAGMA foreign_keys")) == 1  # other keys still checked
    import_archive(parse_packet(archive_packet(30, seed=2)), origin="a.4s")  # insert_new_rows
    hooked = add(ARCHIVE)  # the flush hook
    received = add("Какой город основал Ярослав Мудрый на Волге?", "received", "Ярославль")
    assert buckets_of(received.id) == []  # indexed by its pre-check, not the hook
    assert duplicates.ensure_indexed(received.id) is True
    assert duplicates.ensure_indexed(received.id) is False
    commit()
    keys = dict(db.session.execute(db.select(Question.id, Question.matching_key)).all())
    assert len(keys) == 32
    assert _index_rows() == sorted(
        (b, qid) for qid, key in keys.items() for b in duplicates.buckets(key)
    )
    db.session.execute(db.delete(Question).where(Question.id == hooked.id))
    commit()
    assert buckets_of(hooked.id) == [] and buckets_of(received.id) != []
    assert duplicates.rebuild_index(batch=10) == 31
    commit()
    assert _sqlite_bucket_definition() == (table, triggers)
    assert _bucket_indexes() == ["ix_duplicate_bucket_question_id"]
    db.session.delete(db.session.get(Question, received.id))
    commit()
    assert buckets_of(received.id) == []
    assert {qid for _, qid in _index_rows()} == set(keys) - {hooked.id, received.id}
    # the incremental path after a rebuild
    again = add("В каком году Ярослав Мудрый основал город на Волге?", answer="1010")
    assert buckets_of(again.id) == sorted(duplicates.buckets(again.matching_key))
