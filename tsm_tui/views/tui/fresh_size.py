"""Our screens are laid out at the terminal's size, never at the size of a stale Resize.

Textual 8.2.8 (pinned in pyproject.toml) lays a screen out at the size each Resize in the
screen's queue carries (``Screen._on_resize`` -> ``_screen_resized(event.size)``, for the screen
and for the screens beneath it: textual/screen.py:1510-1514). A relayout that changes the
screen's size posts a Resize of that size back to the screen itself (``Screen._refresh_layout``,
screen.py:1373-1377). While a batch update is open (``App._batch_count``: ``App.delay_update``,
a ``Footer`` recomposing its keys) and the screen counts as current (``is_current``,
screen.py:341: the top screen and ``App._background_screens``, app.py:1644, which always holds
the screen beneath the top one, opaque or not), the same relayout then queues
``call_later(self._compositor_refresh)`` behind that Resize (screen.py:1386-1388).
``Resize.can_replace`` merges only adjacent Resizes (message_pump.py:649-659).

So a screen whose queue holds two Resizes of different sizes with other messages between them
(its message loop behind the terminal: the app starting while the terminal is resized, the
dashboard beneath the runs screen composing) lays itself out at one size, re-posts it behind a
callback, lays itself out at the other, re-posts that one: for ever. The queue never empties,
so the screen's task never awaits and no other task runs: neither the timer nor the mount that
would close the batch. 100% CPU, the UI frozen.

A Resize whose size is not the terminal's any more is dropped: the terminal's size reaches the
screen in a later Resize (``App._check_resize``, app.py:5026, posts the newest size to the top
screen and to the ones beneath it, 1/120 s after the terminal's own Resize), or did already.
"""

from __future__ import annotations

from typing import cast

from textual import events
from textual.screen import Screen


class LaidOutAtTerminalSize:
    """Mixin for a screen: put it before ``Screen`` / ``ModalScreen`` in the bases. Textual
    calls one handler per class in the MRO, the subclass's first (``_on_resize``, or else
    ``on_resize``: message_pump.py:796): preventing the default here skips ``Screen._on_resize``
    for a stale size. A mixin, not a method of each screen: an ``_on_resize`` in a class that
    has an ``on_resize`` (RunsScreen's) would silently replace it."""

    def _on_resize(self, event: events.Resize) -> None:
        if event.size != cast(Screen, self).app.size:
            event.prevent_default()
            event.stop()
