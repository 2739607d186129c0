"""Images are measured from their headers, in every format OpenCV decodes, before any is decoded."""

import io
import os
import struct
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from tests.heic import save_heic
from vision.reader import frame_sources
from vision.reader.frame_sources import FrameSourceError, read_image

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
#: Pillow writes these at any size; (format, mode, extension).
PILLOW_WRITES = [("PNG", "RGB", "png"), ("JPEG", "RGB", "jpg"), ("TIFF", "RGB", "tif"), ("BMP", "RGB", "bmp"),
                 ("GIF", "P", "gif"), ("PPM", "RGB", "ppm"), ("PPM", "L", "pgm"), ("PPM", "1", "pbm"),
                 ("JPEG2000", "RGB", "jp2")]
#: Written here: formats Pillow can't write, three of them it can't read either.
CRAFTED = ["ras", "hdr", "pam", "pfm"]
#: What every refusal for size ends with.
LIMITS = r"; at most 16,384 px a side and under 50 megapixels\)"
#: Encoded by Pillow at 8000×6250 (50 megapixels): WebP and AVIF take seconds to write that size.
FIFTY_MEGAPIXELS = ["over-50-megapixels.webp", "over-50-megapixels.avif"]


def written(extension: str, width: int, height: int) -> bytes:
    for pillow_format, mode, known in PILLOW_WRITES:
        if known == extension:
            out = io.BytesIO()
            Image.new(mode, (width, height)).save(out, pillow_format)
            return out.getvalue()
    if extension == "ras":  # Sun raster: 24-bit, rows padded to 16 bits
        row = (width * 3 + 1) // 2 * 2
        return struct.pack(">8I", 0x59A66A95, width, height, 24, row * height, 1, 0, 0) + bytes(row * height)
    if extension == "hdr":  # Radiance, flat (not run-length) RGBE pixels
        return b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n" % (height, width) + bytes(width * height * 4)
    if extension == "pam":
        return (b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n" % (width, height)
                + bytes(width * height * 3))
    if extension == "pfm":  # colour floats, little-endian
        return b"PF\n%d %d\n-1.0\n" % (width, height) + bytes(width * height * 12)
    raise ValueError(extension)


EXTENSIONS = [extension for _, _, extension in PILLOW_WRITES] + CRAFTED


@pytest.fixture
def no_decoding(monkeypatch):
    def decode(*_):
        raise AssertionError("the image was decoded before it was refused")

    monkeypatch.setattr(frame_sources.cv2, "imdecode", decode)
    monkeypatch.setattr(frame_sources, "_pillow_decoded", decode)


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_an_image_wider_than_taken_is_refused_from_its_header(tmp_path, extension, no_decoding):
    path = tmp_path / f"wide.{extension}"
    path.write_bytes(written(extension, frame_sources.MAX_SIDE + 1, 2))
    with pytest.raises(FrameSourceError, match=r"too large \(16385x2" + LIMITS):
        read_image(path)


@pytest.mark.parametrize("size", [(200, 4000), (16000, 2), (801, 200)])
def test_a_long_narrow_picture_is_refused_from_its_header(tmp_path, size, no_decoding):
    """A strip a few pixels across has no card to read, and a narrow one would be enlarged for the
    network to a picture of gigabytes (200×4000 to 1920×38400)."""
    path = tmp_path / "strip.png"
    path.write_bytes(written("png", *size))
    with pytest.raises(FrameSourceError, match=rf"too long and narrow for a picture of cards \({size[0]}x{size[1]}"):
        read_image(path)


def test_a_phones_tall_photo_and_a_square_one_are_read(tmp_path):
    for size in [(1080, 2400), (800, 200), (1, 1)]:  # 20:9 held upright; 4:1; one pixel
        path = tmp_path / f"{size[0]}x{size[1]}.png"
        path.write_bytes(written("png", *size))
        assert read_image(path).shape == (size[1], size[0], 3)


@pytest.mark.parametrize("name", FIFTY_MEGAPIXELS)
def test_an_image_of_50_megapixels_is_refused_from_its_header(name, no_decoding):
    with pytest.raises(FrameSourceError, match=r"too large \(8000x6250" + LIMITS):
        read_image(DATA / name)


def test_a_phones_48_megapixel_photo_is_read(tmp_path):
    """An iPhone's largest photos (8064×6048) and another phone's 50 MP mode (8160×6120) stay under
    the limit; a one-bit PNG keeps the file small."""
    path = tmp_path / "IMG_0048.png"
    Image.new("1", (8064, 6048), 1).save(path)
    assert read_image(path).shape == (6048, 8064, 3)


@pytest.mark.parametrize("extension", EXTENSIONS + ["webp", "avif", "heic"])
def test_an_image_of_a_size_taken_reads_in_every_format(tmp_path, extension):
    path = tmp_path / f"small.{extension}"
    if extension == "heic":
        save_heic(Image.new("RGB", (64, 48), "white"), path)
    elif extension in ("webp", "avif"):
        out = io.BytesIO()
        Image.new("RGB", (64, 48), "white").save(out, extension.upper())
        path.write_bytes(out.getvalue())
    else:
        path.write_bytes(written(extension, 64, 48))
    assert read_image(path).shape == (48, 64, 3)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="measures memory as Linux counts it")
def test_an_image_bomb_is_refused_without_its_memory(tmp_path):
    """A 20,000×20,000-pixel TIFF of a few kB: OpenCV takes 2.4 GB and seconds to decode it."""
    bomb = tmp_path / "bomb.tif"
    Image.new("1", (20_000, 20_000)).save(bomb, compression="group4")
    # The peak memory of the process (VmHWM: getrusage's figure keeps the forked test runner's)
    measure = ("import sys\nfrom vision.reader.frame_sources import read_image\n"
               "try:\n    read_image(sys.argv[1])\nexcept Exception as error:\n    print(error)\n"
               "peak = next(line for line in open('/proc/self/status') if line.startswith('VmHWM'))\n"
               "print(int(peak.split()[1]) // 1024)")
    done = subprocess.run([sys.executable, "-c", measure, str(bomb)], capture_output=True, text=True, cwd=ROOT)
    said, megabytes = done.stdout.splitlines()
    assert said == f"{bomb}: image too large (400,000,000 pixels; at most 16,384 px a side and under 50 megapixels)"
    assert int(megabytes) < 400, f"{megabytes} MB"
    assert done.stderr == ""  # Pillow's own warning is not printed


def test_a_file_no_reader_knows_is_refused_without_decoding(tmp_path, no_decoding):
    (tmp_path / "notes.png").write_bytes(b"shopping: milk, cards")
    with pytest.raises(FrameSourceError, match="not an image OpenCV can decode"):
        read_image(tmp_path / "notes.png")


def test_every_format_this_opencv_decodes_is_measured_above():
    """The image formats of OpenCV's build information (BMP is always built in) are those tested
    here: a build that adds one needs its header read in vision.reader.frame_sources."""
    built = cv2.getBuildInformation()
    media = built[built.index("Media I/O:"):built.index("Video I/O:")]
    formats = {line.split(":")[0].strip() for line in media.splitlines()
               if line.startswith("    ") and not line.startswith("      ") and ":" in line
               and line.split(":", 1)[1].strip() not in ("", "NO")}
    assert formats - {"ZLib"} <= {"JPEG", "WEBP", "AVIF", "PNG", "TIFF", "JPEG 2000", "GIF", "HDR", "SUNRASTER", "PXM",
                                  "PFM"}


def phone_photo(path: Path, turned: bool = False) -> Path:
    """A 64×48 photo with a red block at its top left, as a phone writes it: ``turned``, its pixels
    stored a quarter turn anticlockwise, with the orientation tag (6) that says to turn them back."""
    picture = Image.new("RGB", (64, 48), "white")
    picture.paste((255, 0, 0), (0, 0, 16, 12))
    if turned:
        picture = picture.transpose(Image.Transpose.ROTATE_90)
    if path.suffix == ".heic":
        return save_heic(picture, path, orientation=6 if turned else None)
    if not turned:
        picture.save(path)
        return path
    tag = Image.Exif()
    tag[0x0112] = 6  # "turn 90° clockwise to show"
    picture.save(path, exif=tag.tobytes())
    return path


@pytest.mark.parametrize("extension", ["jpg", "heic", "avif"])
@pytest.mark.parametrize("turned", [False, True])
def test_a_phone_photo_reads_upright_in_its_colours(tmp_path, extension, turned):
    """JPEG, an iPhone's HEIC and an Android phone's AVIF alike: blue, green, red, as OpenCV gives
    them, and turned as the orientation tag says (OpenCV's own AVIF decoder would not)."""
    image = read_image(phone_photo(tmp_path / f"photo.{extension}", turned))
    assert image.shape == (48, 64, 3)
    b, g, r = image[4, 4].astype(int)
    assert r > 200 and g < 60 and b < 60, image[4, 4]
    assert image[40, 56].min() > 200 and image[4, 56].min() > 200 and image[40, 4].min() > 200


def test_a_heic_photo_wider_than_taken_is_refused_from_its_header(tmp_path, no_decoding):
    path = save_heic(Image.new("RGB", (frame_sources.MAX_SIDE + 1, 64)), tmp_path / "wide.heic")
    with pytest.raises(FrameSourceError, match=r"too large \(16385x64" + LIMITS):
        read_image(path)


@pytest.mark.parametrize("extension", ["heic", "avif"])
@pytest.mark.parametrize("share", [0.3, 0.9])
def test_a_truncated_phone_photo_gets_one_line_naming_its_format(tmp_path, extension, share):
    whole = phone_photo(tmp_path / f"whole.{extension}").read_bytes()
    cut = tmp_path / f"cut.{extension}"
    cut.write_bytes(whole[:int(len(whole) * share)])
    with pytest.raises(FrameSourceError) as raised:
        read_image(cut)
    said = str(raised.value)
    assert said.startswith(f"{cut}: a damaged or truncated {extension.upper()} photo") and "\n" not in said


def test_a_heic_cut_after_its_header_passes_the_check_and_fails_to_decode_in_one_line(tmp_path):
    """What the app checks at once (open_image) and what it decodes on its reading thread (decode)."""
    noise = np.random.default_rng(0).integers(0, 256, (600, 800, 3), np.uint8)  # pixels far longer than the header
    whole = save_heic(Image.fromarray(noise), tmp_path / "whole.heic").read_bytes()
    cut = tmp_path / "cut.heic"
    cut.write_bytes(whole[:len(whole) // 2])
    checked = frame_sources.open_image(cut)
    assert checked.pillow_format == "HEIF" and "data" not in repr(checked)  # megabytes kept out of logs
    with pytest.raises(FrameSourceError) as raised:
        checked.decode()
    said = str(raised.value)
    assert said.startswith(f"{cut}: a damaged or truncated HEIC photo") and "\n" not in said


@pytest.mark.parametrize("extension", ["heic", "avif"])
def test_a_phone_photo_of_the_generic_heif_brand_reads_by_its_own_decoder(tmp_path, extension):
    """A HEIC or an AVIF whose ``ftyp`` brand is the generic ``mif1`` (as some phones write them):
    Pillow names it from its content, and each is decoded by its own decoder (libheif here has no
    AV1 one)."""
    data = bytearray(phone_photo(tmp_path / f"photo.{extension}").read_bytes())
    assert data[4:8] == b"ftyp"
    data[8:12] = b"mif1"
    path = tmp_path / f"generic.{extension}"
    path.write_bytes(bytes(data))
    image = read_image(path)
    assert image.shape == (48, 64, 3) and image[4, 4, 2] > 200 and image[4, 4, :2].max() < 60


def test_a_file_name_that_is_not_utf8_is_told_not_crashed_on(tmp_path, capsys):
    """A Latin-1 name from an old disk (é as one byte): OpenCV's video decoder and its image writer
    crash on such a name. The video is refused in one line; a photo is read, and its annotated copy
    written, under such names."""
    from vision.__main__ import main

    video = os.fsdecode(os.fsencode(tmp_path) + b"/partie\xe9.mp4")  # as the command line hands it over
    Path(video).write_bytes((ROOT / "datasets" / "demo" / "hand.mp4").read_bytes())
    assert main(["read", video]) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"vision read: {tmp_path}/partie\ufffd.mp4: the file's name is not UTF-8 text, which the " \
                          "video decoder can't open; rename the file"
    photo = os.fsdecode(os.fsencode(tmp_path) + b"/table\xe9.png")
    cv2.imwrite(str(tmp_path / "table.png"), np.full((720, 1280, 3), 90, np.uint8))
    Path(photo).write_bytes((tmp_path / "table.png").read_bytes())
    drawn = os.fsdecode(os.fsencode(tmp_path) + b"/drawn\xe9")
    assert main(["read", photo, "--annotate", drawn]) == 0, capsys.readouterr().err
    assert [path.name for path in Path(drawn).iterdir()] == [os.fsdecode(b"table\xe9.jpg")]
