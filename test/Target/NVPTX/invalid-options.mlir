// Invalid options are refused before LLVM sees them: LLVM would abort the
// process. `not` fails on a crash, so each case exits cleanly with 1.
// RUN: not kiln-translate %s --chip=sm_42 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not kiln-translate %s --chip=sm_90a --ptx-version=ptx70 2>&1 | FileCheck %s --check-prefix=TOO-OLD
// RUN: not kiln-translate %s --ptx-version=8.0 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not kiln-translate %s --ptx-version=ptx99 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not kiln-translate %s --opt-level=4 2>&1 | FileCheck %s --check-prefix=OPT-LEVEL

// CHIP: kiln-translate: error: unknown chip 'sm_42' (known chips: sm_70, {{.*}}, sm_90a, {{.*}})
// TOO-OLD: kiln-translate: error: PTX version ptx70 is too old for chip sm_90a, which needs ptx80 or newer
// MALFORMED: kiln-translate: error: malformed PTX version '8.0' (expected 'ptx' and the major and minor digits, such as ptx80)
// UNKNOWN: kiln-translate: error: PTX version ptx99 is unknown to LLVM's NVPTX back end (the newest it knows is ptx{{[0-9]+}})
// OPT-LEVEL: kiln-translate: error: optimization level 4 is out of range (0 to 3)
llvm.func @empty() attributes {nvvm.kernel} {
  llvm.return
}
