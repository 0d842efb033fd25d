"""The season pages: the producer's season page (rating with every move and its clause,
the series and what comes next, winter, out, finals and their prize kinds; the producer's
events, teams and the next game) and the public season page for viewers (standings and
results of the games that have aired, ru/be/en)."""

from __future__ import annotations

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_babel import get_locale
from wtforms import SelectChoice

from webapp.core import keyset
from webapp.core.access import access, current_staff
from webapp.core.edge import on_refusal
from webapp.core.fields import errors_line
from webapp.core.formats import money
from webapp.core.models import utcnow
from webapp.domain.donor import place
from webapp.domain.prizes import awards_available
from webapp.domain.rules import usual_plan
from webapp.domain.rules.parameters import PARAMETERS, rules_clauses, shown_rules
from webapp.domain.text import team_phrase
from webapp.extensions import db
from webapp.games import queries
from webapp.games.models import SERIES_LABELS, Season, Team
from webapp.games.publication import is_published
from webapp.games.season import queries as sq
from webapp.games.season.events import add_event, add_new_team, add_team
from webapp.games.season.forms import (
    SeasonDonorForm,
    SeasonEventForm,
    SeasonGameForm,
    SeasonPrizeForm,
    SeasonStartForm,
    SeasonTeamForm,
    season_amounts_form,
)
from webapp.games.season.operations import (
    create_game,
    set_donor,
    set_prize_amounts,
    set_unanswered_prize,
)

bp = Blueprint("seasons", __name__)

KIND_LABELS = {
    "qualifying": "отборочная",
    "series_final": "финал серии",
    "special": "специальная игра",
    "year_final": "финал года",
    "rematch": "переигровка",
}


def _season_or_404(season_id: int) -> Season:
    return db.get_or_404(Season, season_id)


def _team_choices(season: Season) -> list[SelectChoice]:
    names = [st.team.name for st in sq.season_teams(season)]
    others = [t.name for t in queries.teams() if t.name not in names]
    return [SelectChoice(n, n) for n in names + others]


def _parameter_choices(season: Season) -> list[SelectChoice]:
    """The parameters the season's rule book lets an amendment change (2023 §4.12.1)."""
    return [
        SelectChoice(name, p.label_ru)
        for name, p in PARAMETERS.items()
        if name in season.book.rules.parameters
    ]


def _finals_view(season: Season, state) -> list[dict]:
    """Each final played, with its game and the prize kinds it gives (2023 §4.11.2–4.11.5,
    2009 §3.2–3.3): the kinds depend on the final's kind and on whether the team won."""
    links = sq.game_links(season)
    out = []
    for r in state.results if state is not None else ():
        if r.kind not in ("series_final", "year_final"):
            continue
        winner = "experts" if r.won else "viewers"
        out.append(
            {
                "part": SERIES_LABELS.get(r.part, r.part),
                "kind": KIND_LABELS[r.kind],
                "team": r.team,
                "score": r.score,
                "won": r.won,
                "game": links.get(r.event),
                "prizes": awards_available(season.book, r.kind, winner),
            }
        )
    return out


def _page_language() -> str:
    return str(get_locale() or "ru")


def _amounts_view(season: Season) -> list[dict]:
    """The amounts of the book's individual prizes, as the season sets them: the book's label
    in the page's language, the amount (None: not set), and the clauses of the prizes paying
    it. Enumerated from the book (``book.amounts``): a new prize kind needs no page change."""
    lang = _page_language()
    book = season.book
    return [
        {
            "key": key,
            "label": book.amounts[key].label(lang),
            "amount": amount,
            "rules": [a.rule for a in book.awards.values() if a.amount and a.amount.key == key],
        }
        for key, amount in season.prize_amounts
    ]


def _rules_cited(season: Season, state) -> list[str]:
    """The clauses the «Правила сезона» heading cites: 2023 §4.12.1; under 2009, which has no
    clause on changing the rules, the 2009 clauses of the parameters shown."""
    rules = shown_rules(season.book, state.rules if state is not None else {})
    return rules_clauses(season.book, rules)


@bp.route("/games/seasons/<int:season_id>")
@access("producer|host")
def season(season_id: int):
    """The producer's season page."""
    return season_page(_season_or_404(season_id))


def season_page(season: Season, sent_game_form: SeasonGameForm | None = None):
    """The season page; ``sent_game_form``: the «next game» form just sent and refused,
    shown as it was sent (else a fresh one, starting from the game the season expects)."""
    state = sq.state(season)
    events = sq.stored_events(season)
    team_form = SeasonTeamForm(prefix="team")
    team_form.team_id.choices = [SelectChoice(0, "— выберите —")] + [
        SelectChoice(t.id, t.name)
        for t in queries.teams()
        if sq.team_of_season(season, t.id) is None
    ]
    event_form = SeasonEventForm(prefix="event")
    event_form.team.choices = _team_choices(season)
    event_form.parameter.choices = _parameter_choices(season)
    game_form = sent_game_form or _next_game_form(season, state)
    links = sq.game_links(season)
    # 50 a page, in the order they air (keyset: «следующая →» / «← предыдущая»)
    games = queries.games_page(season.id, **keyset.args(request.args))
    prize_form = SeasonPrizeForm(prefix="prize")
    if season.unanswered_prize is not None:
        prize_form.unanswered_prize.data = money(season.unanswered_prize)
    amounts_form = season_amounts_form(season.book.amounts, _page_language())
    for key, amount in season.prize_amounts:
        if amount is not None:
            amounts_form[key].data = money(amount)
    start_form = SeasonStartForm(prefix="start")
    donor = sq.season_donor(season)
    donor_form = SeasonDonorForm(prefix="donor")
    donor_form.name.data, donor_form.city.data = donor.name, donor.city
    donor_form.representative.data, donor_form.details.data = donor.representative, donor.details
    return render_template(
        "games/season.html",
        season=season,
        state=state,
        book=season.book,
        teams=sq.season_teams(season),
        events=events,
        links=links,
        games=games,
        finals=_finals_view(season, state),
        kind_labels=KIND_LABELS,
        series_labels=SERIES_LABELS,
        team_form=team_form,
        event_form=event_form,
        game_form=game_form,
        prize_form=prize_form,
        prize_locked=queries.season_has_closed_game(season.id),
        prize_changes=sq.prize_changes(season),
        rules_in_force=sq.rules_view(season, state),
        rules_cited=_rules_cited(season, state),
        amendments=sq.amendments_view(season, state, events),
        unanswered_rule=season.book.unanswered_rule,
        prize_amounts=_amounts_view(season),
        amounts_form=amounts_form,
        amount_changes=sq.amount_changes(season),
        page_lang=_page_language(),
        donor=donor,
        donor_neutral=donor == season.book.default_donor,
        donor_form=donor_form,
        donor_changes=sq.donor_changes(season),
        donor_rule=season.book.donor_rule,
        start_form=start_form,
        start=sq.start_view(season, events),
        # Sova's start comes first; only amendments may precede it (docs/protocols.md)
        can_start=state is not None and all(e.payload.get("type") == "amend" for e in events),
    )


@bp.route("/games/seasons/<int:season_id>/start", methods=["POST"])
@access("producer")
def season_start(season_id: int):
    """Sova's ``start`` event: the starting point of a season joined under way (the rating the
    current series opened with, the games so far…), checked by the season engine, stored
    with who recorded it and when."""
    season = _season_or_404(season_id)
    form = SeasonStartForm(prefix="start")
    form.names = [st.team.name for st in sq.season_teams(season)]
    back = url_for("seasons.season", season_id=season_id) + "#start"
    if form.validate_on_submit():
        on_refusal("Начальная точка не принята: ", back)
        add_event(season, form.payload(), current_staff().id)
        flash("Начальная точка сезона записана: сезон ведётся в Сове с неё.", "success")
    else:
        flash("Начальная точка не принята: " + errors_line(form), "error")
    return redirect(back)


@bp.route("/games/seasons/<int:season_id>/donor", methods=["POST"])
@access("producer")
def season_donor(season_id: int):
    """Set or change the donor of the season's prizes (confirmed by a box; audited; the
    unsigned gift agreements of the season are issued again with it)."""
    season = _season_or_404(season_id)
    form = SeasonDonorForm(prefix="donor")
    if form.validate_on_submit():
        on_refusal("Даритель не изменён: ", url_for("seasons.season", season_id=season_id))
        _season, reissued = set_donor(
            season,
            {
                "name": form.name.data,
                "city": form.city.data,
                "representative": form.representative.data,
                "details": form.details.data,
            },
            current_staff().id,
            # the prizes feature's re-issue, handed by the app (webapp.app.register_handovers)
            current_app.extensions["sova_reissue_for_new_donor"],
        )
        again = f" Договоров выписано заново: {reissued}." if reissued else ""
        flash(
            f"Даритель сезона: {season.donor_name}, {place(season.donor_city or '')}.{again}",
            "success",
        )
    else:
        flash("Даритель не изменён: " + errors_line(form), "error")
    return redirect(url_for("seasons.season", season_id=season_id) + "#donor")


@bp.route("/games/seasons/<int:season_id>/prize", methods=["POST"])
@access("producer")
def season_prize(season_id: int):
    """Set or change the season's cash prize per unanswered question (while no game of the
    season is closed; audited)."""
    season = _season_or_404(season_id)
    form = SeasonPrizeForm(prefix="prize")
    if form.validate_on_submit():
        on_refusal("Приз не изменён: ", url_for("seasons.season", season_id=season_id))
        set_unanswered_prize(season, form.unanswered_prize.data, current_staff().id)
        flash(
            f"Приз за невзятый вопрос: {money(season.unanswered_prize, season.currency)}.",
            "success",
        )
    else:
        flash("Приз не изменён: " + errors_line(form), "error")
    return redirect(url_for("seasons.season", season_id=season_id))


@bp.route("/games/seasons/<int:season_id>/amounts", methods=["POST"])
@access("producer")
def season_amounts(season_id: int):
    """Set the amounts of the season's individual prizes (one field per amount of its book;
    confirmed by a box; all or nothing; each changed amount audited). Prizes already
    awarded keep their amounts."""
    season = _season_or_404(season_id)
    book = season.book
    form = season_amounts_form(book.amounts, _page_language())
    back = url_for("seasons.season", season_id=season_id) + "#prize-amounts"

    def refused(exc):
        # the operation keys its errors by amount key: name each by the book's label, as
        # the form's own errors are named
        labels = {key: form[key].label.text for key in form.amount_keys}
        text = "; ".join(
            f"{labels.get(key, key)}: {', '.join(messages)}" for key, messages in exc.errors.items()
        )
        flash("Суммы призов не изменены: " + (text or str(exc)), "error")
        return redirect(back)

    if form.validate_on_submit():
        on_refusal(respond=refused)
        changed = set_prize_amounts(season, form.amounts, current_staff().id)
        if changed:
            flash(
                "Суммы призов сезона: "
                + "; ".join(
                    f"{form[key].label.text} — {money(season.prize_amount(key), season.currency)}"
                    for key in changed
                )
                + ".",
                "success",
            )
        else:
            flash("Суммы призов не изменились.", "success")
    else:
        flash("Суммы призов не изменены: " + errors_line(form), "error")
    return redirect(back)


@bp.route("/games/seasons/<int:season_id>/teams", methods=["POST"])
@access("producer")
def season_team(season_id: int):
    """A team joins the season's initial rating (before the first event)."""
    season = _season_or_404(season_id)
    form = SeasonTeamForm(prefix="team")
    form.team_id.choices = [SelectChoice(0, "")] + [
        SelectChoice(t.id, t.name) for t in queries.teams()
    ]
    if form.validate_on_submit():
        on_refusal("Команда не добавлена: ", url_for("seasons.season", season_id=season_id))
        if form.team_id.data:
            row = add_team(season, db.get_or_404(Team, form.team_id.data))
        else:
            row = add_new_team(
                season,
                form.name.data or "",
                form.captain.data or "",
                (form.experts.data or "").splitlines(),
            )
        flash(f"{team_phrase(row.team.name, capital=True)} — в рейтинге сезона.", "success")
    else:
        flash("Команда не добавлена: " + errors_line(form), "error")
    return redirect(url_for("seasons.season", season_id=season_id))


@bp.route("/games/seasons/<int:season_id>/events", methods=["POST"])
@access("producer")
def season_event(season_id: int):
    """One producer's event, checked by the season engine before it is stored."""
    season = _season_or_404(season_id)
    form = SeasonEventForm(prefix="event")
    form.team.choices = _team_choices(season)
    form.parameter.choices = _parameter_choices(season)
    if form.validate_on_submit():
        # a refusal: the Russian gist of the clause and the clause (SeasonConflict's str)
        on_refusal("Событие не принято: ", url_for("seasons.season", season_id=season_id))
        add_event(season, form.payload(), current_staff().id)
        flash("Событие сезона записано.", "success")
    else:
        flash("Событие не принято: " + errors_line(form), "error")
    return redirect(url_for("seasons.season", season_id=season_id))


def _next_game_form(season: Season, state) -> SeasonGameForm:
    """The «next game» form starting from the game ``state`` expects and the usual plan."""
    game_form = SeasonGameForm(prefix="game")
    game_form.team_id.choices = [
        SelectChoice(st.team.id, st.team.name) for st in sq.season_teams(season)
    ]
    if state is not None and state.next is not None:
        game_form.kind.data = state.next.kind if state.next.kind != "rematch" else "qualifying"
        nxt = next(
            (st.team.id for st in sq.season_teams(season) if st.team.name == state.next.team), None
        )
        game_form.team_id.data = nxt
    plan = usual_plan(season.book.rules)
    game_form.blitz.data, game_form.superblitz.data = plan.blitz, plan.superblitz
    game_form.sector13.data = plan.sector13
    return game_form


@bp.route("/games/seasons/<int:season_id>/games", methods=["POST"])
@access("producer")
def season_game(season_id: int):
    """Create the next game of the season (refused with the clause when the rules do not
    allow this team's game now)."""
    season = _season_or_404(season_id)
    form = SeasonGameForm(prefix="game")
    form.team_id.choices = [
        SelectChoice(st.team.id, st.team.name) for st in sq.season_teams(season)
    ]
    if form.validate_on_submit():
        table = {
            "blitz": form.blitz.data,
            "superblitz": form.superblitz.data,
            "sector13": form.sector13.data,
        }

        def refused(exc):
            flash(f"Игра не создана: {exc}", "error")
            return season_page(_season_or_404(season_id), form), 422

        on_refusal(respond=refused)  # the page again, with what was sent
        game = create_game(
            season.id, form.kind.data, form.air_date.data, table, team_id=form.team_id.data
        )
        flash("Игра создана.", "success")
        return redirect(url_for("games.game", game_id=game.id))
    flash("Игра не создана: " + errors_line(form), "error")
    return season_page(season, form), 422


def aired_state(season: Season):
    """The season as viewers may see it: the replay stops before the first game result whose
    game is not published (:func:`webapp.games.publication.is_published`: closed and its air
    time passed), so the standings reveal nothing about a game before its broadcast — not
    even that it was played or when. Returns ``(state, results)`` with ``results`` =
    ``[(Result, Game)]`` of the aired games; ``(None, [])`` without teams."""
    if not sq.managed(season):
        return None, []
    now = utcnow()
    links = sq.game_links(season)
    stop = None
    for e in sq.stored_events(season):
        game = links.get(e.seq - 1)
        if game is not None and not is_published(game, now):
            stop = e.seq
            break
    eng = sq.engine(season, before_seq=stop)
    state = eng.state()
    return state, [(r, links.get(r.event)) for r in state.results]


@bp.route("/season/<int:season_id>")
@access("public")
def public(season_id: int):
    """The viewers' season page: standings and results of the aired games."""
    season = _season_or_404(season_id)
    state, results = aired_state(season)
    events = sq.stored_events(season)
    amended = [] if state is None else [(a, events[a.event].created_at) for a in state.amendments]
    return render_template(
        "games/season_public.html",
        season=season,
        state=state,
        results=results,
        rules={} if state is None else shown_rules(season.book, state.rules),
        amendments=amended,  # 2023 §4.12.1: [(Amendment, recorded at UTC)]
    )
