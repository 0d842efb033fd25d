"""the staff pages' indexes at the archive's size: the likely author pairs, the confirmed
links, the queue's filter by the author's city

- ``ix_author_name_city`` ``author (name_key, city_key)``: the chief editor's likely pairs
  (``webapp.authors.queries``) join a row to the rows of the same name *and* city, or of
  the same name and an empty city, each through this index, never every row of a name;
- ``ix_question_author_confirmed`` ``question_author (author_id)`` of the confirmed links
  only (partial): which authors have a confirmed address, without reading every link of
  the archive (the statements repeat ``confirmed_at IS NOT NULL``);
- ``ix_question_author_city`` ``question_author (city, question_id)``: the queue filtered
  by the author's city;
- the statistics (``webapp.moderation.stats``) read only indexes, however long the window:
  ``ix_question_viewer_created`` (partial, ``channel <> 'archive'``) made covering
  (``created_at, channel, status, id``: the intake per day and channel and the counts per
  status without the rows' text), ``ix_question_author_first`` ``question_author
  (question_id, id)`` of the first authors with their city (the first author's city of a
  question, one probe), ``ix_question_status_change_decided`` ``question_status_change
  (question_id, at)`` of the decisions only (``to_status IN ('approved', 'rejected')``: the
  first decision of each question of the window, never the archive's «archived» rows).

Revision ID: 0041_staff_page_indexes
Revises: 0040_season_amount
"""

from alembic import op

revision = "0041_staff_page_indexes"
down_revision = "0040_season_amount"
branch_labels = None
depends_on = None


def upgrade():
    op.execute("CREATE INDEX ix_author_name_city ON author (name_key, city_key)")
    op.execute(
        "CREATE INDEX ix_question_author_confirmed ON question_author (author_id) "
        "WHERE confirmed_at IS NOT NULL"
    )
    op.execute("CREATE INDEX ix_question_author_city ON question_author (city, question_id)")
    op.execute("DROP INDEX IF EXISTS ix_question_viewer_created")
    op.execute(
        "CREATE INDEX ix_question_viewer_created ON question (created_at, channel, status, id) "
        "WHERE channel <> 'archive'"
    )
    op.execute(
        "CREATE INDEX ix_question_author_first ON question_author (question_id, id, city) "
        "WHERE position = 0"
    )
    op.execute(
        "CREATE INDEX ix_question_status_change_decided ON question_status_change "
        "(question_id, at) WHERE to_status IN ('approved', 'rejected')"
    )


def downgrade():
    op.execute("DROP INDEX IF EXISTS ix_question_status_change_decided")
    op.execute("DROP INDEX IF EXISTS ix_question_author_first")
    op.execute("DROP INDEX IF EXISTS ix_question_viewer_created")
    op.execute(
        "CREATE INDEX ix_question_viewer_created ON question (created_at) "
        "WHERE channel <> 'archive'"
    )
    op.execute("DROP INDEX IF EXISTS ix_question_author_city")
    op.execute("DROP INDEX IF EXISTS ix_question_author_confirmed")
    op.execute("DROP INDEX IF EXISTS ix_author_name_city")
