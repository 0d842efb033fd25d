"""Editor decision form."""

from flask_wtf import FlaskForm
from wtforms import HiddenField, TextAreaField
from wtforms.validators import AnyOf, DataRequired, Length, Optional


class DecisionForm(FlaskForm):
    decision = HiddenField(validators=[DataRequired(), AnyOf(["approve", "reject"])])
    reason = TextAreaField("Причина (для автора)", validators=[Optional(), Length(max=1000)])
