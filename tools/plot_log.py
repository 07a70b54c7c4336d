#!/usr/bin/env python3
"""Plot columns of articula CSV logs against time.

    plot_log.py LOG.csv [LOG2.csv ...] -c COLUMN [-c COLUMN ...] -o out.png
                [--labels a,b] [--title T]

One subplot per column matched by the -c patterns (shell-style globs such as 'q.*'), x = the
column `t` shared by all subplots, one line per log, labelled with the log's file stem or
--labels. Events from each log's sibling `<stem>.events.csv`, if present, are drawn as dashed
vertical lines in the log's colour. Exit code 2, with a message, for a missing file, a pattern
that matches no column, or bad arguments. Reads large logs with pandas when it is installed, others
with the csv module; plots with matplotlib's Agg backend (no display needed).
"""
import argparse
import csv
import io
import fnmatch
import math
import sys
from pathlib import Path

PROG = "plot_log.py"
PANDAS_BYTES = 4 << 20  # logs larger than this are read with pandas, if installed


def fail(message):
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_header(path):
    with open(path, newline="") as f:
        return next(csv.reader(f), [])


def ends_with_newline(path):
    """False when the last line is unterminated: a process killed (SIGKILL) while writing can
    leave one cut-off line at the end, which is not a row and is dropped."""
    with open(path, "rb") as f:
        f.seek(0, 2)
        if f.tell() == 0:
            return True
        f.seek(-1, 2)
        return f.read(1) == b"\n"


def read_columns(path, names):
    """The named columns of a CSV log as sequences of floats (`nan` reads as NaN)."""
    complete = ends_with_newline(path)
    pandas = None
    if Path(path).stat().st_size > PANDAS_BYTES:  # pandas parses faster but takes a while to import
        try:
            import pandas
        except ImportError:
            pass
    if pandas is not None:
        frame = pandas.read_csv(path, usecols=names)
        if not complete:
            frame = frame.iloc[:-1]
        return {name: frame[name].to_numpy(dtype=float) for name in names}
    with open(path, newline="") as f:
        text = f.read()
    if not complete:
        text = text[: text.rfind("\n") + 1]  # drop the cut-off last line
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader)
    index = [header.index(name) for name in names]
    records = [record for record in reader if len(record) == len(header)]
    return {name: [float(record[i]) for record in records] for name, i in zip(names, index)}


def read_events(log_path):
    """(time, name) of the events in `<stem>.events.csv` next to the log, or []."""
    path = Path(log_path)
    events = path.with_name(path.name[: -len(".csv")] + ".events.csv") if path.name.endswith(".csv") else None
    if events is None or not events.is_file():
        return []
    with open(events, newline="") as f:
        return [(float(row["time"]), row["name"]) for row in csv.DictReader(f)]


def main(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="+", metavar="LOG.csv", help="CSV logs written by articula")
    parser.add_argument("-c", "--column", action="append", required=True, metavar="COLUMN",
                        help="column name or glob pattern (e.g. 'q.*'); repeatable")
    parser.add_argument("-o", "--output", required=True, help="image file to write (PNG, SVG, PDF, ...)")
    parser.add_argument("--labels", help="comma-separated legend labels, one per log (default: file stems)")
    parser.add_argument("--title", help="figure title")
    args = parser.parse_args(argv)

    # Check everything before the (slow) plotting imports.
    for log in args.logs:
        if not Path(log).is_file():
            fail(f"no such file: {log}")
    headers = [read_header(log) for log in args.logs]
    labels = args.labels.split(",") if args.labels else [Path(log).stem for log in args.logs]
    if len(labels) != len(args.logs):
        fail(f"--labels has {len(labels)} labels for {len(args.logs)} logs")
    available = list(dict.fromkeys(name for header in headers for name in header))
    columns = []
    for pattern in args.column:
        matched = [name for name in available if fnmatch.fnmatchcase(name, pattern) and (name != "t" or pattern == "t")]
        if not matched:
            fail(f"column '{pattern}' matches no column; available columns: {', '.join(available)}")
        columns += [name for name in matched if name not in columns]
    if not Path(args.output).resolve().parent.is_dir():
        fail(f"no such directory for the output: {args.output}")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(len(columns), 1, sharex=True, squeeze=False,
                                figsize=(8, 1.0 + 2.0 * len(columns)))
    axes = axes[:, 0]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    annotated = set()
    for k, (log, header, label) in enumerate(zip(args.logs, headers, labels)):
        color = colors[k % len(colors)]
        wanted = [name for name in columns if name in header]
        data = read_columns(log, list(dict.fromkeys((["t"] if "t" in header else []) + wanted)))
        x = data["t"] if "t" in header else range(len(data[wanted[0]]) if wanted else 0)
        for ax, name in zip(axes, columns):
            if name in wanted:
                ax.plot(x, data[name], color=color, label=label, linewidth=1.0)
        for time, name in read_events(log):
            if not math.isfinite(time):
                continue
            for ax in axes:
                ax.axvline(time, color=color, linestyle="--", linewidth=0.8, alpha=0.7)
            if (time, name) in annotated:
                continue  # the same event in several logs: one label
            annotated.add((time, name))
            axes[0].annotate(name, (time, 1.0), xycoords=("data", "axes fraction"), rotation=90, fontsize=7,
                             va="top", ha="right", color=color)
    for ax, name in zip(axes, columns):
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    axes[-1].set_xlabel("t [s]")
    if args.title:
        figure.suptitle(args.title)
    figure.tight_layout()
    figure.savefig(args.output, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
