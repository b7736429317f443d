"""A scripted editor session against ``tactl lsp`` as a separate process: JSON-RPC with
Content-Length framing on its standard input and output, as VS Code, Neovim or Emacs speak it.

The expected diagnostics are what ``tactl check`` prints for the same text (its first stderr
line, ``file:line:col: message``); the expected send guards are the translate pass's
certificate rows (``tactl/driver/translation.py``), so the server is held to the commands.
Reads wait generously (the machine may be loaded); nothing measures time.
"""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import CORPUS

READ_TIMEOUT = 180  # seconds to wait for one message: a bound on a hang, not a measurement


class Session:
    """The client side: framed messages out, a reader thread queueing framed messages in."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "tactl", "lsp"], cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.process.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            self.inbox.put(json.loads(out.read(int(headers["content-length"]))))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def wait_for(self, accept) -> dict:
        """The first incoming message ``accept`` takes (others, e.g. log messages, are skipped)."""
        while True:
            message = self.inbox.get(timeout=READ_TIMEOUT)
            assert message is not None, "the server closed its output: " + self.process.stderr.read().decode()
            if accept(message):
                return message

    def request(self, method: str, params: dict | None = None):
        self.next_id += 1
        ident = self.next_id
        self.send({"id": ident, "method": method, "params": params})
        reply = self.wait_for(lambda m: m.get("id") == ident and "method" not in m)
        assert "error" not in reply, reply
        return reply["result"]

    def diagnostics(self, uri: str, version: int) -> list[dict]:
        """The diagnostics published for ``uri`` at ``version`` (the last one of a burst is not
        needed: the server publishes a version's reading, then its translation only if it adds)."""
        return self.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == uri
                             and m["params"].get("version") == version)["params"]["diagnostics"]


def cli_error(tmp_path: Path, name: str, text: str) -> tuple[int, int, str, int]:
    """(line, column, message, width of the caret) of the first error ``tactl check`` prints
    for ``text``."""
    (tmp_path / name).write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "tactl", "check", name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 2, run.stderr
    m = re.match(rf"{re.escape(name)}:(\d+):(\d+): (.*)", run.stderr.splitlines()[0])
    assert m, run.stderr
    return int(m.group(1)), int(m.group(2)), m.group(3), run.stderr.splitlines()[2].count("^")


def certificate_row(path: Path, rule: int) -> dict:
    # lazy: the translation, only to know what the hover must show
    from tactl.driver.commands import translate_file
    from tactl.driver.translation import certificate_rows

    loaded, result = translate_file(path, (), True, lambda _: None)
    return next(r for r in certificate_rows(loaded.rta, result) if r["rule"].startswith(f"{rule}:"))


def at(text: str, needle: str, line_hint: str | None = None) -> dict:
    """The 0-based position of ``needle`` (on the first line containing ``line_hint``)."""
    for number, line in enumerate(text.split("\n")):
        if needle in line and (line_hint is None or line_hint in line):
            return {"line": number, "character": line.index(needle)}
    raise AssertionError(f"{needle!r} not found")


@pytest.fixture()
def session(tmp_path):
    s = Session(tmp_path)
    yield s
    if s.process.poll() is None:
        s.process.kill()
    s.process.wait(timeout=60)


def test_an_editor_session(session, tmp_path):
    caps = session.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
    assert caps["capabilities"]["hoverProvider"] and caps["capabilities"]["definitionProvider"]
    assert caps["capabilities"]["documentSymbolProvider"]
    session.notify("initialized", {})

    # A typo in pseudocode: the diagnostic is check's error, at its position.
    good = (CORPUS / "strb" / "strb.alg").read_text(encoding="utf-8")
    broken = good.replace("send ECHO to all", "send ECHO to al")
    line, col, message, width = cli_error(tmp_path, "strb.alg", broken)
    uri = (tmp_path / "strb.alg").as_uri()
    session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "tactl-alg",
                                                             "version": 1, "text": broken}})
    [diagnostic] = session.diagnostics(uri, 1)
    assert diagnostic["message"] == message and diagnostic["severity"] == 1
    assert diagnostic["range"]["start"] == {"line": line - 1, "character": col - 1}
    assert diagnostic["range"]["end"] == {"line": line - 1, "character": col - 1 + width}

    # Fixed: the diagnostics are cleared.
    session.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                              "contentChanges": [{"text": good}]})
    assert session.diagnostics(uri, 2) == []

    # Hover on a receiving line: the send guard of each rule it is part of, with its certificate.
    hover = session.request("textDocument/hover", {
        "textDocument": {"uri": uri}, "position": at(good, "receiving ECHO from t + 1")})
    shown = hover["contents"]["value"]
    row = certificate_row(CORPUS / "strb" / "strb.alg", 1)
    assert f"send guard:    {row['send_guard']}" in shown
    assert f"receive guard: {row['receive_guard']}" in shown and "sound ✓  precise ✓" in shown

    # Definition of a message used in a send statement: its declaration.
    found = session.request("textDocument/definition", {
        "textDocument": {"uri": uri}, "position": at(good, "ECHO", "send ECHO")})
    declared = at(good, "ECHO", "messages")
    assert found["uri"] == uri and found["range"]["start"] == declared

    symbols = session.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert {(s["name"], s["detail"]) for s in symbols} >= {
        ("n", "parameter"), ("ECHO", "message"), ("v", "variable"), ("accept", "variable"),
        ("unforgeability", "property"), ("relay", "property")}

    # A receive automaton: hover inside a rule's `when (...)`, and its locations and rules.
    rta = (CORPUS / "aba" / "aba.rta").read_text(encoding="utf-8")
    rta_uri = (tmp_path / "aba.rta").as_uri()
    session.notify("textDocument/didOpen", {"textDocument": {"uri": rta_uri, "languageId": "tactl-rta",
                                                             "version": 1, "text": rta}})
    assert session.diagnostics(rta_uri, 1) == []
    hover = session.request("textDocument/hover", {
        "textDocument": {"uri": rta_uri}, "position": at(rta, "received(ECHO)", "1: V0 -> EC")})
    assert f"send guard:    {certificate_row(CORPUS / 'aba' / 'aba.rta', 1)['send_guard']}" in hover["contents"]["value"]
    found = session.request("textDocument/definition", {
        "textDocument": {"uri": rta_uri}, "position": at(rta, "RD", "3: EC -> RD")})
    assert found["range"]["start"] == at(rta, "RD", "locations")
    names = {s["name"]: s["detail"] for s in session.request(
        "textDocument/documentSymbol", {"textDocument": {"uri": rta_uri}})}
    assert names["0: V1 -> EC"] == "rule" and names["AC"] == "location" and names["READY"] == "message"

    # Closing a buffer clears what was shown for it.
    session.notify("textDocument/didClose", {"textDocument": {"uri": rta_uri}})
    assert session.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == rta_uri)["params"]["diagnostics"] == []

    assert session.request("shutdown") is None
    session.notify("exit", None)
    assert session.process.wait(timeout=READ_TIMEOUT) == 0


def test_a_threshold_automaton_error_is_checks_error(session, tmp_path):
    session.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    session.notify("initialized", {})
    text = (CORPUS / "strb" / "strb.ta").read_text(encoding="utf-8")
    broken = text.replace("0: V1 -> SE", "0: V1 -> SX", 1)
    line, col, message, _ = cli_error(tmp_path, "strb.ta", broken)
    uri = (tmp_path / "strb.ta").as_uri()
    session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "tactl-ta",
                                                             "version": 7, "text": broken}})
    [diagnostic] = session.diagnostics(uri, 7)
    assert (diagnostic["message"], diagnostic["range"]["start"]) == (
        message, {"line": line - 1, "character": col - 1})
    found = session.request("textDocument/definition", {
        "textDocument": {"uri": uri}, "position": at(broken, "V1", "0: V1 -> SX")})
    assert found is None  # the broken buffer has no symbols: nothing is guessed
    where = at(broken, "SX")  # an incremental change: the two characters replaced
    session.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 8}, "contentChanges": [{
        "range": {"start": where, "end": {**where, "character": where["character"] + 2}}, "text": "SE"}]})
    assert session.diagnostics(uri, 8) == []
    found = session.request("textDocument/definition", {
        "textDocument": {"uri": uri}, "position": at(text, "V1", "0: V1 -> SE")})
    assert found["range"]["start"] == at(text, "V1", "V1: [")
    assert session.request("shutdown") is None
    session.notify("exit", None)
    assert session.process.wait(timeout=READ_TIMEOUT) == 0
