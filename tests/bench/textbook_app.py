"""The anchor of ``python -m tests.bench.submit``: the viewer form as a Flask
developer would write it from the tutorials, never part of the product.

Flask-WTF (CSRF on) with the fields of Sova's viewer form (``SubmitForm``: question,
answer, accepted answers, comment, sources, handout text and image, name, city, two
co-author rows, e-mail, the three checkboxes) and validators in its spirit (required
question, answer, name and e-mail, the consent and age checkboxes required, the same
lengths); Flask-SQLAlchemy with ``pool_pre_ping`` on; two tables of its own (``author`` with
a unique e-mail, ``question`` with a foreign key to it) in a database of its own. A valid
POST gets or creates the author by e-mail, inserts the question, commits, then
``celery_app.send_task("textbook.precheck", args=[question.id])`` to Redis, and redirects
(302). Served like Sova: ``gunicorn -w 2 'tests.bench.textbook_app:create_app()'``.

What it lacks, and Sova has: the task is sent after the commit, so a broker outage or a
crash between the two loses it (no outbox); a double click stores two questions (no
idempotency key); the e-mail is stored in clear (no encryption); no rate limits, honeypot
or minimum fill time; two first submissions with one new e-mail race on the unique key
(one of them answers 500).

Settings from the environment: ``TEXTBOOK_DATABASE_URL``, ``TEXTBOOK_BROKER_URL`` and
``TEXTBOOK_SECRET_KEY`` (the same in every worker, or one worker's CSRF token fails in
the other).
"""

from __future__ import annotations

import os

from celery import Celery
from flask import Flask, redirect, render_template_string, url_for
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import FlaskForm
from flask_wtf.file import FileAllowed, FileField, FileSize
from wtforms import BooleanField, EmailField, FieldList, Form, FormField, StringField, TextAreaField
from wtforms.validators import DataRequired, Email, Length, Optional

db = SQLAlchemy()
celery_app = Celery("textbook")
QUEUE = "textbook"  # its own Redis list (the bench counts the tasks in it, then empties it)


class Author(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    email = db.Column(db.String(254), unique=True, nullable=False)
    name = db.Column(db.String(200), nullable=False)
    city = db.Column(db.String(200))
    created_at = db.Column(db.DateTime(timezone=True), server_default=db.func.now())


class Question(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    author_id = db.Column(db.Integer, db.ForeignKey("author.id"), nullable=False)
    author = db.relationship(Author, backref="questions")
    text = db.Column(db.Text, nullable=False)
    answer = db.Column(db.String(500), nullable=False)
    accepted = db.Column(db.String(1000))
    comment = db.Column(db.Text)
    sources = db.Column(db.Text)
    handout = db.Column(db.Text)
    coauthors = db.Column(db.Text)
    consent_on_air = db.Column(db.Boolean, nullable=False, default=False)
    status = db.Column(db.String(20), nullable=False, default="received")
    created_at = db.Column(db.DateTime(timezone=True), server_default=db.func.now())


class CoauthorForm(Form):
    name = StringField("Co-author", validators=[Optional(), Length(max=200)])
    city = StringField("Co-author's city", validators=[Optional(), Length(max=200)])


class QuestionForm(FlaskForm):
    question = TextAreaField("Question", validators=[DataRequired(), Length(min=20, max=3000)])
    answer = StringField("Answer", validators=[DataRequired(), Length(max=500)])
    accepted = StringField("Also accepted", validators=[Optional(), Length(max=1000)])
    comment = TextAreaField("Comment", validators=[Optional(), Length(max=3000)])
    sources = TextAreaField("Sources", validators=[Optional(), Length(max=3000)])
    handout = TextAreaField("Handout", validators=[Optional(), Length(max=2000)])
    handout_image = FileField(
        "Handout image",
        validators=[FileAllowed(["jpg", "jpeg", "png", "webp"]), FileSize(5 * 1024 * 1024)],
    )
    name = StringField("Name", validators=[DataRequired(), Length(max=200)])
    city = StringField("City", validators=[Optional(), Length(max=200)])
    coauthors = FieldList(FormField(CoauthorForm), min_entries=2, max_entries=5)
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254), Email()])
    consent = BooleanField("I agree to the processing of my data", [DataRequired()])
    consent_on_air = BooleanField("My name may be said on air")
    age_confirmed = BooleanField("I am 16 or older", [DataRequired()])


PAGE = """<!doctype html>
<title>Send a question</title>
<form method="post" enctype="multipart/form-data">
  {{ form.csrf_token }}
  {% for field in form if field.name != "csrf_token" %}
    {% if field.type == "FieldList" %}
      {% for row in field %}{{ row.form.name.label }} {{ row.form.name() }}
        {{ row.form.city.label }} {{ row.form.city() }}{% endfor %}
    {% else %}
      <p>{{ field.label }} {{ field() }} {{ field.errors | join(" ") }}</p>
    {% endif %}
  {% endfor %}
  <button>Send</button>
</form>
"""


def create_app(config: dict | None = None) -> Flask:
    """``gunicorn 'tests.bench.textbook_app:create_app()'``; ``config`` overrides the
    environment's settings."""
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=os.environ.get("TEXTBOOK_SECRET_KEY"),
        SQLALCHEMY_DATABASE_URI=os.environ.get("TEXTBOOK_DATABASE_URL"),
        SQLALCHEMY_ENGINE_OPTIONS={"pool_pre_ping": True},
    )
    app.config.update(config or {})
    db.init_app(app)
    celery_app.conf.broker_url = os.environ.get("TEXTBOOK_BROKER_URL", "redis://localhost:6379")
    celery_app.conf.task_default_queue = QUEUE

    @app.route("/submit", methods=["GET", "POST"])
    def submit():
        form = QuestionForm()
        if form.validate_on_submit():
            author = db.session.execute(
                db.select(Author).filter_by(email=form.email.data)
            ).scalar_one_or_none()
            if author is None:
                author = Author(email=form.email.data, name=form.name.data, city=form.city.data)
                db.session.add(author)
            question = Question(
                author=author,
                text=form.question.data,
                answer=form.answer.data,
                accepted=form.accepted.data,
                comment=form.comment.data,
                sources=form.sources.data,
                handout=form.handout.data,
                coauthors="; ".join(r.form.name.data for r in form.coauthors if r.form.name.data),
                consent_on_air=form.consent_on_air.data,
            )
            db.session.add(question)
            db.session.commit()
            celery_app.send_task("textbook.precheck", args=[question.id])
            return redirect(url_for("thanks", question_id=question.id))
        return render_template_string(PAGE, form=form), 422 if form.is_submitted() else 200

    @app.route("/thanks/<int:question_id>")
    def thanks(question_id: int):
        return f"Question {question_id} received, thank you."

    return app


def create_tables(database_url: str) -> None:
    """``db.create_all()`` on ``database_url`` (the bench, before gunicorn starts)."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": database_url})
    with app.app_context():
        db.create_all()
        db.engine.dispose()
