"""The producer's planning pages: the index, new seasons, series, teams and games, a game's
team and series."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from wtforms import SelectChoice

from webapp.core import keyset
from webapp.core.access import access
from webapp.core.edge import on_refusal
from webapp.core.fields import errors_line
from webapp.domain.books import BOOKS
from webapp.domain.donor import quoted
from webapp.domain.rules import usual_plan
from webapp.domain.text import team_phrase
from webapp.games import queries
from webapp.games.forms import AttachForm, GameForm, SeasonForm, SeriesForm, TeamForm
from webapp.games.models import SERIES_LABELS
from webapp.games.season import queries as season_queries
from webapp.games.season.operations import (
    attach,
    create_game,
    create_season,
    create_series,
    create_team,
)
from webapp.games.views.common import bp, game_or_404


@bp.route("/")
@access("producer|host")
def index():
    game_form = GameForm(prefix="game")
    game_form.season_id.choices = [
        SelectChoice(s.id, s.name) for s in queries.seasons(limit=queries.SEASON_CHOICES)
    ]
    # the form starts from the usual plan; every book shares it, so the season
    # chosen in the form does not change it (webapp.domain.rules.usual_plan)
    plan = usual_plan(next(iter(BOOKS.values())).rules)
    game_form.blitz.data, game_form.superblitz.data = plan.blitz, plan.superblitz
    game_form.sector13.data = plan.sector13
    return index_page(game_form)


def index_page(game_form: GameForm):
    """The games' index with ``game_form`` as its «Новая игра» form: a fresh one, or the
    one just sent and refused, which keeps what was typed."""
    season_form = SeasonForm(prefix="season")
    # two paged lists on one page: the games (``after``/``before``) and the seasons
    # (``seasons_after``/``seasons_before``); each one's links keep the other's place
    games = queries.games_page(**keyset.args(request.args))
    seasons = queries.seasons_page(**keyset.args(request.args, prefix="seasons_"))
    at_games = {k: v for k, v in request.args.items() if k in ("after", "before")}
    at_seasons = {k: v for k, v in request.args.items() if k in ("seasons_after", "seasons_before")}
    series_form = SeriesForm(prefix="series")
    series_form.season_id.choices = game_form.season_id.choices
    return render_template(
        "games/index.html",
        seasons=seasons,
        at_games=at_games,
        at_seasons=at_seasons,
        games=games,
        season_form=season_form,
        game_form=game_form,
        series_form=series_form,
        series=queries.series_of([s.id for s in seasons.items]),
        series_labels=SERIES_LABELS,
    )


@bp.route("/series", methods=["POST"])
@access("producer")
def new_series():
    """Create the season's spring/summer/autumn/winter series (idempotent)."""
    form = SeriesForm(prefix="series")
    form.season_id.choices = [SelectChoice(s.id, s.name) for s in queries.seasons()]
    if form.validate_on_submit():
        on_refusal("Серия не создана: ", url_for("games.index"))
        series = create_series(form.season_id.data, form.part.data)
        flash(f"{series.display_name}: серия есть.", "success")
    else:
        flash("Серия не создана: " + errors_line(form), "error")
    return redirect(url_for("games.index"))


@bp.route("/teams", methods=["GET", "POST"])
@access("producer")
def teams():
    """Teams of experts: the list and the form (name, six experts, captain)."""
    form = TeamForm()
    if form.validate_on_submit():

        def refused(exc):
            flash(f"Команда не создана: {exc}", "error")
            return render_template("games/teams.html", teams=queries.teams(), form=form)

        on_refusal(respond=refused)
        team = create_team(form.name.data, form.captain.data, form.experts.data.splitlines())
        flash(f"{team_phrase(team.name, capital=True)} создана.", "success")
        return redirect(url_for("games.teams"))
    elif form.is_submitted():
        flash("Команда не создана: " + errors_line(form), "error")
    return render_template("games/teams.html", teams=queries.teams(), form=form)


@bp.route("/<int:game_id>/attach", methods=["POST"])
@access("producer")
def attach_game(game_id: int):
    """Set a game's team and series (before its first event)."""
    game = game_or_404(game_id)
    form = attach_form_for(game)
    if form.validate_on_submit():
        on_refusal("Не сохранено: ", url_for("games.game", game_id=game_id))
        attach(game, form.team_id.data or None, form.series_id.data or None)
        flash("Команда и серия игры сохранены.", "success")
    else:
        flash("Не сохранено: " + errors_line(form), "error")
    return redirect(url_for("games.game", game_id=game_id))


def attach_form_for(game, series=None) -> AttachForm:
    """The team and series form, starting from the game's team (its row, or the team of
    that name when only the free-text name is set) and ``series``, the series the season
    counts it in (``webapp.games.season.queries.counted_series``, computed here when not given), so that
    saving it unchanged detaches nothing. The teams offered are the game's season's
    (its rating and the teams that entered it, by name) when the season is kept by the
    engine, since only they may play it (``season.refusals.check_new_game``); a season
    without a rating has no roster, so it offers every team."""
    if season_queries.managed(game.season):
        teams = sorted(
            (st.team for st in season_queries.season_teams(game.season)), key=lambda t: t.name
        )
        if game.team_row is not None and game.team_row not in teams:
            teams.append(game.team_row)  # kept, so that saving unchanged detaches nothing
    else:
        teams = queries.teams()
    team_id = game.team_id
    if team_id is None and game.team:
        team_id = next((t.id for t in teams if t.name == game.team), None)
    if series is None:
        series = season_queries.counted_series(game)
    form = AttachForm(team_id=team_id or 0, series_id=series.id if series else 0)
    # without a team of the list the game may still carry the name typed when it was made
    # (kept by saving «none»): the empty choice says so, not «нет» beside «Команда: X»
    no_team = f"— без состава: «{game.team}» —" if game.team and not team_id else "— нет —"
    form.team_id.choices = [SelectChoice(0, no_team)] + [SelectChoice(t.id, t.name) for t in teams]
    form.series_id.choices = [SelectChoice(0, "— нет —")] + [
        SelectChoice(x.id, x.display_name) for x in queries.series_of([game.season_id])
    ]
    return form


@bp.route("/seasons", methods=["POST"])
@access("producer")
def new_season():
    form = SeasonForm(prefix="season")
    if form.validate_on_submit():
        on_refusal("Сезон не создан: ", url_for("games.index"))
        season = create_season(
            form.name.data,
            form.ruleset.data,
            unanswered_prize=form.unanswered_prize.data or None,
            form=True,
            prize_required=True,
        )
        flash(f"Сезон {quoted(season.name)} создан.", "success")
    else:
        flash("Сезон не создан: " + errors_line(form), "error")
    return redirect(url_for("games.index"))


@bp.route("/new", methods=["POST"])
@access("producer")
def new_game():
    form = GameForm(prefix="game")
    form.season_id.choices = [SelectChoice(s.id, s.name) for s in queries.seasons()]
    if form.validate_on_submit():

        def refused(exc):
            flash(f"Игра не создана: {exc}", "error")
            return index_page(form), 422

        on_refusal(respond=refused)  # the page again, with what was typed
        game = create_game(
            form.season_id.data,
            form.kind.data,
            form.air_date.data,
            {
                "blitz": form.blitz.data,
                "superblitz": form.superblitz.data,
                "sector13": form.sector13.data,
            },
            team=form.team.data,
            title=form.title.data,
        )
        flash(f"Игра создана: {game.label}.", "success")
        return redirect(url_for("games.game", game_id=game.id))
    flash("Игра не создана: " + errors_line(form), "error")
    return index_page(form), 422
