"""Rendering of the Jinja templates in ``templates/<target>/`` for the emitter passes."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2


@cache
def environment() -> jinja2.Environment:
    import jinja2  # lazy: slow to import, and only emitting text needs it (not tactl check)

    root = resources.files("tactl.templates")
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)),
        undefined=jinja2.StrictUndefined,  # a typo in a template is an error, not empty text
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(template: str, filters: dict[str, object] | None = None, **context: object) -> str:
    """Render ``templates/<template>`` (e.g. ``"dot/ta.dot.j2"``), with the emitter's filters."""
    env = environment()
    if filters:
        env.filters.update(filters)  # each emitter registers its own names; they never clash
    return env.get_template(template).render(**context)
