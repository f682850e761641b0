"""The README gallery is generated from the scenario files (renders/gallery.py), one start-of-
battle board per battle, and regenerating it replaces the README section instead of adding one."""
from __future__ import annotations

import io

from PIL import Image

from renders import gallery


def test_the_gallery_has_one_readable_board_per_battle_and_rewrites_its_readme_section(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Herald\n\nintro\n", encoding="utf-8")
    battles = gallery.battles()
    ids = {(r, s) for r, _, s, _ in battles}
    assert ("battlecry", "first-bull-run") in ids and ("tacw", "edgehill") in ids
    written = gallery.write_gallery(tmp_path / "docs" / "gallery", readme)
    assert len(written) == len(battles)
    for path in written:
        img = Image.open(io.BytesIO(path.read_bytes()))
        assert img.width >= 600 and img.height >= 400
        assert len(img.convert("RGB").getcolors(1 << 20) or []) > 50     # a drawn board, not a blank
    text = readme.read_text(encoding="utf-8")
    assert text.count(gallery.START) == 1 and "intro" in text
    for _, _, sid, _ in battles:
        assert f"`{sid}`" in text and f"--{sid}.png" in text
    gallery.write_gallery(tmp_path / "docs" / "gallery", readme)        # again: same section, once
    assert readme.read_text(encoding="utf-8") == text
