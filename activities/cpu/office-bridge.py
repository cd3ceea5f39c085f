"""One warm LibreOffice listener and the bridge that drives it (word-to-pdf).

Started by activities/cpu/office-listener.ts, one process per listener, as
`/usr/bin/python3 office-bridge.py --profile DIR --pipe NAME [--soffice PATH]`, usually inside its
own network namespace. It starts soffice with its own profile, accepting UNO on a named pipe (a
Unix socket: no TCP, so it works in a namespace whose loopback is down), connects once and keeps
that connection for every conversion.

Protocol on stdin/stdout, one JSON object per line:
  -> {"event": "ready", "sofficePid": N, "startMs": N}            once, after a warm-up conversion
  <- {"id": "...", "input": "/path/in.docx", "output": "/path/out.pdf", "filter": "MS Word 2007 XML"}
  -> {"id": "...", "ok": true, "ms": N} | {"id": "...", "ok": false, "kind": "load"|"export", "error": "..."}
One conversion at a time; the Node side never sends a second request before the answer.
soffice writes to stderr only, so stdout carries nothing but the protocol. Run it as a process
group of its own (the Node side spawns it detached): when stdin closes it terminates soffice
cleanly, then kills that group (whatever is left of it) and itself last.

Debian's python3-uno works with /usr/bin/python3 only; this file needs nothing else.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException

# com.sun.star.document.UpdateDocMode.NO_UPDATE and MacroExecutionMode.NEVER_EXECUTE: linked
# content (images, OLE objects, DDE fields pointing at URLs) is not refreshed on load and no
# macro runs, whatever the document asks for.
NO_UPDATE = 0
NEVER_EXECUTE = 0

CONNECT_TIMEOUT_S = 60
WARM_UP_RTF = rb"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0\pard warm-up\par}"


def props(**values):
    return tuple(PropertyValue(Name=name, Value=value) for name, value in values.items())


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def start_soffice(soffice, profile, pipe):
    profile_url = uno.systemPathToFileUrl(os.path.abspath(profile))
    cmd = [
        soffice,
        "--headless",
        "--invisible",
        "--nocrashreport",
        "--nodefault",
        "--nologo",
        "--nofirststartwizard",
        "--norestore",
        "--nolockcheck",
        f"-env:UserInstallation={profile_url}",
        f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext",
    ]
    # stdout=stderr: soffice must never write into the protocol stream.
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno())


def connect(pipe, soffice_process):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    while True:
        try:
            context = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            return context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        except NoConnectException:
            if soffice_process.poll() is not None:
                raise RuntimeError(f"soffice exited with {soffice_process.returncode} before accepting connections")
            if time.monotonic() > deadline:
                raise RuntimeError(f"soffice did not accept connections within {CONNECT_TIMEOUT_S} s")
            time.sleep(0.05)


def convert(desktop, input_path, output_path, filter_name):
    load = props(
        Hidden=True,
        ReadOnly=True,
        FilterName=filter_name,
        UpdateDocMode=NO_UPDATE,
        MacroExecutionMode=NEVER_EXECUTE,
    )
    try:
        document = desktop.loadComponentFromURL(uno.systemPathToFileUrl(input_path), "_blank", 0, load)
    except Exception as err:  # IllegalArgumentException, IOException: the file is not what it claims
        return {"ok": False, "kind": "load", "error": f"{type(err).__name__}: {err}"}
    if document is None:
        return {"ok": False, "kind": "load", "error": "the document could not be loaded"}
    try:
        document.storeToURL(
            uno.systemPathToFileUrl(output_path),
            props(FilterName="writer_pdf_Export", Overwrite=True),
        )
        return {"ok": True}
    except Exception as err:
        return {"ok": False, "kind": "export", "error": f"{type(err).__name__}: {err}"}
    finally:
        try:
            document.close(True)
        except Exception:
            document.dispose()


def warm_up(desktop):
    """The first conversion loads Writer's libraries and the PDF filter: pay for it before ready."""
    with tempfile.TemporaryDirectory(prefix="office-warm-up-") as folder:
        source = os.path.join(folder, "warm-up.rtf")
        with open(source, "wb") as file:
            file.write(WARM_UP_RTF)
        result = convert(desktop, source, os.path.join(folder, "warm-up.pdf"), "Rich Text Format")
        if not result["ok"]:
            raise RuntimeError(f"warm-up conversion failed: {result['error']}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", required=True)
    parser.add_argument("--pipe", required=True)
    parser.add_argument("--soffice", default="/usr/bin/soffice")
    args = parser.parse_args()

    started = time.monotonic()
    soffice = start_soffice(args.soffice, args.profile, args.pipe)
    try:
        desktop = connect(args.pipe, soffice)
        warm_up(desktop)
        send({"event": "ready", "sofficePid": soffice.pid, "startMs": round((time.monotonic() - started) * 1000)})
        for line in sys.stdin:
            if not line.strip():
                continue
            request = json.loads(line)
            began = time.monotonic()
            result = convert(desktop, request["input"], request["output"], request["filter"])
            result["id"] = request["id"]
            result["ms"] = round((time.monotonic() - began) * 1000, 1)
            send(result)
        # stdin closed: the Node side asks for a clean stop. A terminated soffice removes its
        # pipes and lock files, which a killed one leaves behind in /tmp and the profile.
        try:
            desktop.terminate()
            soffice.wait(timeout=5)
        except Exception:
            pass
    finally:
        # Whatever is left (soffice did not terminate, or something broke) goes with this bridge.
        # Killing the `soffice` wrapper would leave soffice.bin running, so the whole process
        # group goes (the Node side started this bridge as a group of its own), this bridge last.
        os.killpg(os.getpgrp(), signal.SIGKILL)


if __name__ == "__main__":
    main()
