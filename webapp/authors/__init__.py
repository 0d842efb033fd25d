"""One author per person: likely matches shown to the chief editor, the
audited merge of two author rows, and the editor's confirmation that a question's author
line is a given author. Above ``prizes`` in the feature layers: a merge moves
questions (submissions) and prizes (prizes) and looks at game tables (games)."""
