"""``dealerassist vision``: enroll a deck design, read frames, calibrate the camera, make test scenes."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import cv2
import numpy as np

from dealerassist.errors import DealerAssistError
from dealerassist.simulation import artwork
from dealerassist.vision.deck import DeckModel
from dealerassist.vision.enrollment import (
    MEMBERS,
    SCENES_PER_CARD,
    TABLES,
    check_folder,
    enroll,
    index_start_path,
)
from dealerassist.vision.reader import CardReader
from dealerassist.vision.registration import (
    LayoutRegistration,
    RegistrationError,
    Zones,
    homography,
    load_calibration,
    marker_layout,
    save_calibration,
)
from dealerassist.vision.scenes import write_scenes
from dealerassist.vision.sighting import CardSighting


class FrameError(DealerAssistError):
    """A frame file that cannot be read as an image."""


def register(sub: argparse._SubParsersAction) -> None:
    vision = sub.add_parser("vision", help="card recognition: enroll decks, read frames, calibrate, scenes")
    vsub = vision.add_subparsers(dest="vision_command", metavar="SUBCOMMAND", required=True)

    p = vsub.add_parser("enroll", help="learn a deck design from AS.png .. KC.png and back.png")
    p.add_argument("folder", help="folder holding one clean image per card and back.png")
    p.add_argument("--out", required=True, help="deck file to write (.npz)")
    p.add_argument("--name", help="design name stored in the deck file (default: the folder name)")
    p.add_argument(
        "--training-scenes",
        type=_positive,
        default=SCENES_PER_CARD,
        help="small scenes rendered around each card for each network "
        f"(default {SCENES_PER_CARD}; fewer is faster, less sure)",
    )
    p.add_argument(
        "--tables",
        type=_positive,
        default=TABLES,
        help=f"whole synthetic tables whose corners each network learns (default {TABLES})",
    )
    p.add_argument(
        "--members",
        type=_positive,
        default=MEMBERS,
        help=f"networks in the deck's committee (default {MEMBERS}): a card is named where a majority "
        "of them name it; each network adds its own training time",
    )
    p.set_defaults(handler=_enroll)

    p = vsub.add_parser(
        "index-start", help="learn the networks every enrollment starts from, across the training designs"
    )
    p.add_argument("--out", required=True, help="file to write (.npz), e.g. " + str(index_start_path()))
    p.add_argument(
        "--designs",
        nargs="+",
        help="design names or card image folders (default: designs.toml's training designs)",
    )
    p.set_defaults(handler=_index_start)

    p = vsub.add_parser("read", help="read the cards in camera frames and print them as JSON")
    p.add_argument("frames", nargs="+", metavar="FRAME", help="image files")
    p.add_argument("--deck", required=True, help="deck file from 'vision enroll'")
    p.add_argument("--zones", metavar="TABLE.toml", help="table file whose [vision] section names the zones")
    p.add_argument(
        "--calibration", help="calibration file from 'vision calibrate' (else markers or the table's)"
    )
    p.add_argument("--out-dir", help="write <frame>.json and an annotated <frame>-read.png per frame here")
    p.set_defaults(handler=_read)

    p = vsub.add_parser("calibrate", help="store the image -> layout homography from four point pairs")
    p.add_argument("--frame", required=True, help="a frame from the camera (checks the points lie in it)")
    p.add_argument("--image-points", required=True, help="four image points 'x,y x,y x,y x,y' (pixels)")
    p.add_argument("--layout-points", required=True, help="the matching layout points (millimetres)")
    p.add_argument("--out", required=True, help="calibration file to write (.json)")
    p.set_defaults(handler=_calibrate)

    p = vsub.add_parser("scenes", help="write synthetic table frames with their truth as JSON")
    p.add_argument(
        "--design",
        required=True,
        help="card image folder, or a design name: "
        + ", ".join(artwork.SHARED_DESIGNS + artwork.RENDERED_DESIGNS),
    )
    p.add_argument("--out", required=True, help="folder for scene-NNNN.jpg + scene-NNNN.json")
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cards", type=int, help="cards per scene (default: 1..14 at random)")
    p.set_defaults(handler=_scenes)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _design_folder(text: str) -> Path:
    path = Path(text)
    return path if path.is_dir() else artwork.design_dir(text)


def _writable(name: str) -> Path:
    """The file ``name``, its folder made: asked before minutes of training, not after."""
    out = Path(name)
    if out.is_dir():
        raise DealerAssistError(f"{out}: a folder, not a file to write")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out.parent):
            pass
    except OSError as exc:
        raise DealerAssistError(f"{out}: cannot write a file there ({exc.strerror})") from exc
    return out


def _enroll(args: argparse.Namespace) -> int:
    check_folder(args.folder)
    out = _writable(args.out)
    print(
        f"enrolling {args.folder}: training its index classifiers (about a minute of CPU) ...",
        flush=True,
    )
    model = enroll(
        args.folder, args.name, args.training_scenes, args.tables, notice=print, members=args.members
    )
    model.save(out)
    check = model.check
    print(
        f"enrolled {model.name} -> {out}\n"
        f"self-check on {check['index_windows']} fresh index windows: "
        f"{100 * check['named_right']:.1f} % named right, {100 * check['named_wrong']:.2f} % named wrong; "
        f"{100 * check['other_windows_named']:.2f} % of other windows named a card"
    )
    return 0


def _index_start(args: argparse.Namespace) -> int:
    from dealerassist.simulation.index_start import train_index_start

    designs = args.designs or artwork.design_split()["train"]
    out = _writable(args.out)
    print(f"drawing the training windows of {len(designs)} designs (some 15 minutes of CPU) ...", flush=True)
    with open(out, "wb") as file:
        np.savez(file, **train_index_start(designs).arrays())
    print(f"wrote {out}")
    return 0


def _read_frame(path: str) -> np.ndarray:
    if not Path(path).is_file():  # asked first: OpenCV would also print a warning of its own
        raise FrameError(f"{path}: {'not a file' if Path(path).exists() else 'no such file'}")
    if _cut_short(Path(path).read_bytes()):
        raise FrameError(f"{path}: the image ends early (a copy or upload cut short?): save or copy it again")
    frame = cv2.imread(path, cv2.IMREAD_COLOR)  # turned as its EXIF says, as a phone photo needs
    if frame is None:
        raise FrameError(f"{path}: not an image OpenCV can read (give a camera frame as JPEG, PNG or BMP)")
    if min(frame.shape[:2]) < 64:
        raise FrameError(
            f"{path}: {frame.shape[1]}x{frame.shape[0]} px is too small to hold a card "
            "(give the camera's whole frame, at least 64x64 px)"
        )
    return frame


def _cut_short(data: bytes) -> bool:
    """True for a JPEG whose last scan never reaches its end marker, or a PNG without its end
    chunk. OpenCV decodes the part that is there, fills the rest with grey and only warns: the
    reader would then report no cards where the photo shows some."""
    if data.startswith(b"\xff\xd8"):  # JPEG: after the last start of scan comes the end of image
        return data.rfind(b"\xff\xd9") < data.rfind(b"\xff\xda")
    if data.startswith(b"\x89PNG"):
        return data.rfind(b"IEND") < 0
    return False


def _placement(args: argparse.Namespace) -> tuple[LayoutRegistration, Zones] | None:
    if not args.zones:
        if args.calibration:
            raise RegistrationError("--calibration needs --zones TABLE.toml to say where the zones are")
        return None
    from dealerassist.tablefiles.tables import load_table

    table = load_table(args.zones)
    source = str(args.zones)
    zones = Zones.from_config(table.vision, source)
    calibration = None
    cal_path = args.calibration or table.vision.get("calibration")
    if cal_path:
        cal = Path(cal_path)
        if not cal.is_absolute() and not args.calibration:
            cal = Path(args.zones).parent / cal
        calibration = load_calibration(cal)
    return LayoutRegistration(marker_layout(table.vision, source), calibration), zones


def annotate(frame: np.ndarray, sightings: list[CardSighting]) -> np.ndarray:
    """The frame with every sighting outlined: green read, amber unknown, blue face down."""
    out = frame.copy()
    for s in sightings:
        colour = (60, 200, 60) if s.card else ((200, 120, 40) if not s.face_up else (0, 170, 255))
        quad = np.round(s.quad).astype(np.int32)
        cv2.polylines(out, [quad], True, colour, 2)
        cv2.circle(out, tuple(int(v) for v in quad[0]), 4, colour, -1)
        label = s.card if s.card else ("down" if not s.face_up else "?")
        label += f" {s.confidence:.2f}" + (f" {s.zone}" if s.zone else "")
        org = tuple(int(v) for v in s.quad.mean(axis=0) - [30, 0])
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    return out


def _read(args: argparse.Namespace) -> int:
    from dealerassist.vision.process import prepare_for_reading, set_aside_what_is_loaded

    prepare_for_reading()
    reader = CardReader(DeckModel.load(args.deck))
    set_aside_what_is_loaded()
    placement = _placement(args)
    out_dir = Path(args.out_dir) if args.out_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    for path in args.frames:
        frame = _read_frame(path)
        sightings = reader.read(frame)
        if placement is not None:
            registration, zones = placement
            if registration.update(frame) == "none":
                raise RegistrationError(
                    f"{path}: no layout markers found and no calibration: cannot tell which zone a card is in"
                )
            for s in sightings:
                s.zone = registration.zone_of(zones, s.centre)
        listing = [s.to_json() for s in sightings]
        # The files first: a closed stdout (``| head``) then never costs a frame's saved read.
        if out_dir:
            stem = Path(path).stem
            (out_dir / f"{stem}.json").write_text(json.dumps(listing, indent=1) + "\n")
            cv2.imwrite(str(out_dir / f"{stem}-read.png"), annotate(frame, sightings))
        print(json.dumps(listing), flush=True)  # frame by frame, for whoever watches a camera's reads
    return 0


def _points(text: str, what: str) -> np.ndarray:
    try:
        pts = np.array([[float(v) for v in pair.split(",")] for pair in text.replace(";", " ").split()])
    except ValueError:
        raise RegistrationError(f"{what}: expected four 'x,y' pairs, got {text!r}") from None
    if pts.shape != (4, 2):
        raise RegistrationError(f"{what}: expected four 'x,y' pairs, got {text!r}")
    return pts


def _calibrate(args: argparse.Namespace) -> int:
    frame = _read_frame(args.frame)
    image_points = _points(args.image_points, "--image-points")
    layout_points = _points(args.layout_points, "--layout-points")
    h, w = frame.shape[:2]
    outside = [f"{x:g},{y:g}" for x, y in image_points if not (0 <= x < w and 0 <= y < h)]
    if outside:
        raise RegistrationError(f"--image-points: {' '.join(outside)} outside the {w}x{h} frame {args.frame}")
    matrix = homography(image_points, layout_points)
    save_calibration(args.out, matrix, image_points, layout_points, frame=str(args.frame))
    print(f"calibration written to {args.out}")
    return 0


def _scenes(args: argparse.Namespace) -> int:
    if args.count < 1:
        raise DealerAssistError("--count must be at least 1")
    if args.cards is not None and not 1 <= args.cards <= 14:
        raise DealerAssistError("--cards must be 1..14")
    written = write_scenes(_design_folder(args.design), args.out, args.count, args.seed, args.cards)
    print(f"{len(written)} scenes with truth in {args.out}")
    return 0
