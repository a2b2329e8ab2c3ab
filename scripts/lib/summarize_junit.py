"""Adds up JUnit XML reports (lit, ctest, pytest) into one summary line.

Prints one line per report and then "N passed, M failed[, K skipped]".
Exits 1 when a test failed or errored, or when no test ran at all.
"""

import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def count(report: Path) -> tuple[int, int, int]:
    """Returns (passed, failed, skipped) for one report."""
    passed = failed = skipped = 0
    for case in ET.parse(report).getroot().iter("testcase"):
        outcome = {child.tag for child in case}
        if outcome & {"failure", "error"}:
            failed += 1
        elif "skipped" in outcome:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(reports: list[str]) -> int:
    totals = [0, 0, 0]
    for name in reports:
        passed, failed, skipped = count(Path(name))
        print(f"  {Path(name).stem:8} {passed} passed, {failed} failed, "
              f"{skipped} skipped")
        totals = [t + n for t, n in zip(totals, (passed, failed, skipped))]
    passed, failed, skipped = totals
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
