// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// GENERATED FILE: do not edit. The exact table of CSources/CFeedStream/html_entities.c (the 248
// HTML 4 named entities: name -> UTF-8 text), made by this Python script, run from the package root:
//     python3 gen_entities.py > Sources/FeedStreamSwift/Generated/HTMLEntities.swift
// The script is the "// |" lines below; get it back with
//     sed -n 's/^\/\/ | \{0,1\}//p' Sources/FeedStreamSwift/Generated/HTMLEntities.swift > gen_entities.py
//
// | # Generates Sources/FeedStreamSwift/Generated/HTMLEntities.swift from CSources/CFeedStream/html_entities.c.
// | # Run from the package root: python3 gen_entities.py > Sources/FeedStreamSwift/Generated/HTMLEntities.swift
// | import re, sys
// | src = open("CSources/CFeedStream/html_entities.c", encoding="ascii").read()
// | pairs = []
// | for name, value in re.findall(r'^\s*\{ "([A-Za-z0-9]+)", "((?:\\x[0-9a-f]{2})+)" \},$', src, re.M):
// |     utf8 = bytes(int(h, 16) for h in re.findall(r'\\x([0-9a-f]{2})', value))
// |     pairs.append((name.encode("ascii"), utf8))
// | assert len(pairs) == 248, len(pairs)
// | assert [p[0] for p in pairs] == sorted(p[0] for p in pairs), "C table must be sorted bytewise"
// | script = open(__file__, encoding="utf-8").read().rstrip("\n")
// | names = b"".join(n for n, _ in pairs)
// | values = b"".join(v for _, v in pairs)
// | name_off, value_off, a, b = [], [], 0, 0
// | for n, v in pairs:
// |     name_off.append(a); value_off.append(b); a += len(n); b += len(v)
// | name_off.append(a); value_off.append(b)
// | def swift_string(bs):
// |     out = []
// |     for ch in bs.decode("utf-8"):
// |         out.append(ch if 0x20 <= ord(ch) < 0x7F and ch not in '"\\' else "\\u{%X}" % ord(ch))
// |     return "".join(out)
// | def lines(s, width=92):
// |     # a Swift multi-line literal body, cut at escape boundaries, lines joined by "\\"
// |     parts, cur = [], ""
// |     for tok in re.findall(r'\\u\{[0-9A-F]+\}|.', s):
// |         if len(cur) + len(tok) > width: parts.append(cur); cur = ""
// |         cur += tok
// |     parts.append(cur)
// |     return "\\\n".join("        " + p for p in parts)
// | def nums(xs, per=16):
// |     return ",\n".join("        " + ", ".join(str(x) for x in xs[i:i + per]) for i in range(0, len(xs), per))
// | w = sys.stdout.write
// | w("// SPDX-License-Identifier: Apache-2.0\n#if canImport(Glibc)\nimport Glibc\n#elseif canImport(Darwin)\nimport Darwin\n#endif\n\n")
// | w("// GENERATED FILE: do not edit. The exact table of CSources/CFeedStream/html_entities.c (the 248\n")
// | w("// HTML 4 named entities: name -> UTF-8 text), made by this Python script, run from the package root:\n")
// | w("//     python3 gen_entities.py > Sources/FeedStreamSwift/Generated/HTMLEntities.swift\n")
// | w("// The script is the \"// |\" lines below; get it back with\n")
// | w("//     sed -n 's/^\\/\\/ | \\{0,1\\}//p' Sources/FeedStreamSwift/Generated/HTMLEntities.swift > gen_entities.py\n")
// | w("//\n")
// | for line in script.split("\n"):
// |     w(("// | " + line).rstrip() + "\n")
// | w("""
// | /// The HTML 4 named character references (HTML 4.01, section 24) that feeds use without
// | /// declaring them: the table of the C core's `cfs_html_entity` (html_entities.c), for the
// | /// Swift backend. Names are matched exactly (case-sensitive), as in the C core.
// | ///
// | /// Layout: every name, sorted bytewise, in one static UTF-8 blob (`names`), every value in
// | /// another (`values`); entity `i` is `names[nameOffsets[i]..<nameOffsets[i+1]]` and
// | /// `values[valueOffsets[i]..<valueOffsets[i+1]]`. A lookup is a binary search over the
// | /// names with no allocation.
// | enum HTMLEntities {
// |     /// Number of entities.
// |     static let count = %d
// |
// |     /// The UTF-8 text of the entity `name` (the bytes between `&` and `;`), or nil when
// |     /// it is not one of the HTML 4 entities. The buffer points into static storage and
// |     /// stays valid for the life of the process.
// |     static func utf8(named name: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
// |         let n = name.count
// |         guard n > 0, n <= maxNameLength, let q = name.baseAddress else { return nil }
// |         let blob = UnsafeRawPointer(names.utf8Start)
// |         var lo = 0, hi = count
// |         while lo < hi {
// |             let mid = (lo + hi) >> 1
// |             let start = Int(nameOffsets[mid]), len = Int(nameOffsets[mid + 1]) - start
// |             var c = memcmp(blob + start, q, min(len, n))
// |             if c == 0 { c = len < n ? -1 : (len > n ? 1 : 0) }
// |             if c == 0 { return value(at: mid) }
// |             if c < 0 { lo = mid + 1 } else { hi = mid }
// |         }
// |         return nil
// |     }
// |
// |     /// Entity `i` (0 ..< count), in name order: for tests and tools.
// |     static func entry(at i: Int) -> (name: UnsafeRawBufferPointer, utf8: UnsafeRawBufferPointer) {
// |         let start = Int(nameOffsets[i])
// |         let name = UnsafeRawBufferPointer(start: UnsafeRawPointer(names.utf8Start) + start,
// |                                           count: Int(nameOffsets[i + 1]) - start)
// |         return (name, value(at: i))
// |     }
// |
// |     @inline(__always)
// |     private static func value(at i: Int) -> UnsafeRawBufferPointer {
// |         let start = Int(valueOffsets[i])
// |         return UnsafeRawBufferPointer(start: UnsafeRawPointer(values.utf8Start) + start,
// |                                       count: Int(valueOffsets[i + 1]) - start)
// |     }
// |
// |     private static let maxNameLength = %d
// |
// | """ % (len(pairs), max(len(n) for n, _ in pairs)))
// | w('    private static let names: StaticString = """\n%s\n        """\n\n' % lines(swift_string(names)))
// | w('    private static let values: StaticString = """\n%s\n        """\n\n' % lines(swift_string(values)))
// | w("    private static let nameOffsets: [UInt16] = [\n%s,\n    ]\n\n" % nums(name_off))
// | w("    private static let valueOffsets: [UInt16] = [\n%s,\n    ]\n}\n" % nums(value_off))

/// The HTML 4 named character references (HTML 4.01, section 24) that feeds use without
/// declaring them: the table of the C core's `cfs_html_entity` (html_entities.c), for the
/// Swift backend. Names are matched exactly (case-sensitive), as in the C core.
///
/// Layout: every name, sorted bytewise, in one static UTF-8 blob (`names`), every value in
/// another (`values`); entity `i` is `names[nameOffsets[i]..<nameOffsets[i+1]]` and
/// `values[valueOffsets[i]..<valueOffsets[i+1]]`. A lookup is a binary search over the
/// names with no allocation.
enum HTMLEntities {
    /// Number of entities.
    static let count = 248

    /// The UTF-8 text of the entity `name` (the bytes between `&` and `;`), or nil when
    /// it is not one of the HTML 4 entities. The buffer points into static storage and
    /// stays valid for the life of the process.
    static func utf8(named name: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let n = name.count
        guard n > 0, n <= maxNameLength, let q = name.baseAddress else { return nil }
        let blob = UnsafeRawPointer(names.utf8Start)
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) >> 1
            let start = Int(nameOffsets[mid]), len = Int(nameOffsets[mid + 1]) - start
            var c = memcmp(blob + start, q, min(len, n))
            if c == 0 { c = len < n ? -1 : (len > n ? 1 : 0) }
            if c == 0 { return value(at: mid) }
            if c < 0 { lo = mid + 1 } else { hi = mid }
        }
        return nil
    }

    /// Entity `i` (0 ..< count), in name order: for tests and tools.
    static func entry(at i: Int) -> (name: UnsafeRawBufferPointer, utf8: UnsafeRawBufferPointer) {
        let start = Int(nameOffsets[i])
        let name = UnsafeRawBufferPointer(start: UnsafeRawPointer(names.utf8Start) + start,
                                          count: Int(nameOffsets[i + 1]) - start)
        return (name, value(at: i))
    }

    @inline(__always)
    private static func value(at i: Int) -> UnsafeRawBufferPointer {
        let start = Int(valueOffsets[i])
        return UnsafeRawBufferPointer(start: UnsafeRawPointer(values.utf8Start) + start,
                                      count: Int(valueOffsets[i + 1]) - start)
    }

    private static let maxNameLength = 8

    private static let names: StaticString = """
        AEligAacuteAcircAgraveAlphaAringAtildeAumlBetaCcedilChiDaggerDeltaETHEacuteEcircEgraveEpsilo\
        nEtaEumlGammaIacuteIcircIgraveIotaIumlKappaLambdaMuNtildeNuOEligOacuteOcircOgraveOmegaOmicro\
        nOslashOtildeOumlPhiPiPrimePsiRhoScaronSigmaTHORNTauThetaUacuteUcircUgraveUpsilonUumlXiYacut\
        eYumlZetaaacuteacircacuteaeligagravealefsymalphaandangaringasympatildeaumlbdquobetabrvbarbul\
        lcapccedilcedilcentchicircclubscongcopycrarrcupcurrendArrdaggerdarrdegdeltadiamsdivideeacute\
        ecircegraveemptyemspenspepsilonequivetaetheumleuroexistfnofforallfrac12frac14frac34fraslgamm\
        agehArrharrheartshellipiacuteicirciexcligraveimageinfinintiotaiquestisiniumlkappalArrlambdal\
        anglaquolarrlceilldquolelfloorlowastlozlrmlsaquolsquomacrmdashmicromiddotminusmunablanbspnda\
        shneninotnotinnsubntildenuoacuteocircoeligograveolineomegaomicronoplusorordfordmoslashotilde\
        otimesoumlparapartpermilperpphipipivplusmnpoundprimeprodproppsirArrradicrangraquorarrrceilrd\
        quorealregrfloorrhorlmrsaquorsquosbquoscaronsdotsectshysigmasigmafsimspadessubsubesumsupsup1\
        sup2sup3supeszligtauthere4thetathetasymthinspthorntildetimestradeuArruacuteuarrucircugraveum\
        lupsihupsilonuumlweierpxiyacuteyenyumlzetazwjzwnj
        """

    private static let values: StaticString = """
        \u{C6}\u{C1}\u{C2}\u{C0}\u{391}\u{C5}\u{C3}\u{C4}\u{392}\u{C7}\u{3A7}\u{2021}\u{394}\u{D0}\
        \u{C9}\u{CA}\u{C8}\u{395}\u{397}\u{CB}\u{393}\u{CD}\u{CE}\u{CC}\u{399}\u{CF}\u{39A}\u{39B}\
        \u{39C}\u{D1}\u{39D}\u{152}\u{D3}\u{D4}\u{D2}\u{3A9}\u{39F}\u{D8}\u{D5}\u{D6}\u{3A6}\u{3A0}\
        \u{2033}\u{3A8}\u{3A1}\u{160}\u{3A3}\u{DE}\u{3A4}\u{398}\u{DA}\u{DB}\u{D9}\u{3A5}\u{DC}\
        \u{39E}\u{DD}\u{178}\u{396}\u{E1}\u{E2}\u{B4}\u{E6}\u{E0}\u{2135}\u{3B1}\u{2227}\u{2220}\
        \u{E5}\u{2248}\u{E3}\u{E4}\u{201E}\u{3B2}\u{A6}\u{2022}\u{2229}\u{E7}\u{B8}\u{A2}\u{3C7}\
        \u{2C6}\u{2663}\u{2245}\u{A9}\u{21B5}\u{222A}\u{A4}\u{21D3}\u{2020}\u{2193}\u{B0}\u{3B4}\
        \u{2666}\u{F7}\u{E9}\u{EA}\u{E8}\u{2205}\u{2003}\u{2002}\u{3B5}\u{2261}\u{3B7}\u{F0}\u{EB}\
        \u{20AC}\u{2203}\u{192}\u{2200}\u{BD}\u{BC}\u{BE}\u{2044}\u{3B3}\u{2265}\u{21D4}\u{2194}\
        \u{2665}\u{2026}\u{ED}\u{EE}\u{A1}\u{EC}\u{2111}\u{221E}\u{222B}\u{3B9}\u{BF}\u{2208}\u{EF}\
        \u{3BA}\u{21D0}\u{3BB}\u{2329}\u{AB}\u{2190}\u{2308}\u{201C}\u{2264}\u{230A}\u{2217}\u{25CA}\
        \u{200E}\u{2039}\u{2018}\u{AF}\u{2014}\u{B5}\u{B7}\u{2212}\u{3BC}\u{2207}\u{A0}\u{2013}\
        \u{2260}\u{220B}\u{AC}\u{2209}\u{2284}\u{F1}\u{3BD}\u{F3}\u{F4}\u{153}\u{F2}\u{203E}\u{3C9}\
        \u{3BF}\u{2295}\u{2228}\u{AA}\u{BA}\u{F8}\u{F5}\u{2297}\u{F6}\u{B6}\u{2202}\u{2030}\u{22A5}\
        \u{3C6}\u{3C0}\u{3D6}\u{B1}\u{A3}\u{2032}\u{220F}\u{221D}\u{3C8}\u{21D2}\u{221A}\u{232A}\
        \u{BB}\u{2192}\u{2309}\u{201D}\u{211C}\u{AE}\u{230B}\u{3C1}\u{200F}\u{203A}\u{2019}\u{201A}\
        \u{161}\u{22C5}\u{A7}\u{AD}\u{3C3}\u{3C2}\u{223C}\u{2660}\u{2282}\u{2286}\u{2211}\u{2283}\
        \u{B9}\u{B2}\u{B3}\u{2287}\u{DF}\u{3C4}\u{2234}\u{3B8}\u{3D1}\u{2009}\u{FE}\u{2DC}\u{D7}\
        \u{2122}\u{21D1}\u{FA}\u{2191}\u{FB}\u{F9}\u{A8}\u{3D2}\u{3C5}\u{FC}\u{2118}\u{3BE}\u{FD}\
        \u{A5}\u{FF}\u{3B6}\u{200D}\u{200C}
        """

    private static let nameOffsets: [UInt16] = [
        0, 5, 11, 16, 22, 27, 32, 38, 42, 46, 52, 55, 61, 66, 69, 75,
        80, 86, 93, 96, 100, 105, 111, 116, 122, 126, 130, 135, 141, 143, 149, 151,
        156, 162, 167, 173, 178, 185, 191, 197, 201, 204, 206, 211, 214, 217, 223, 228,
        233, 236, 241, 247, 252, 258, 265, 269, 271, 277, 281, 285, 291, 296, 301, 306,
        312, 319, 324, 327, 330, 335, 340, 346, 350, 355, 359, 365, 369, 372, 378, 383,
        387, 390, 394, 399, 403, 407, 412, 415, 421, 425, 431, 435, 438, 443, 448, 454,
        460, 465, 471, 476, 480, 484, 491, 496, 499, 502, 506, 510, 515, 519, 525, 531,
        537, 543, 548, 553, 555, 559, 563, 569, 575, 581, 586, 591, 597, 602, 607, 610,
        614, 620, 624, 628, 633, 637, 643, 647, 652, 656, 661, 666, 668, 674, 680, 683,
        686, 692, 697, 701, 706, 711, 717, 722, 724, 729, 733, 738, 740, 742, 745, 750,
        754, 760, 762, 768, 773, 778, 784, 789, 794, 801, 806, 808, 812, 816, 822, 828,
        834, 838, 842, 846, 852, 856, 859, 861, 864, 870, 875, 880, 884, 888, 891, 895,
        900, 904, 909, 913, 918, 923, 927, 930, 936, 939, 942, 948, 953, 958, 964, 968,
        972, 975, 980, 986, 989, 995, 998, 1002, 1005, 1008, 1012, 1016, 1020, 1024, 1029, 1032,
        1038, 1043, 1051, 1057, 1062, 1067, 1072, 1077, 1081, 1087, 1091, 1096, 1102, 1105, 1110, 1117,
        1121, 1127, 1129, 1135, 1138, 1142, 1146, 1149, 1153,
    ]

    private static let valueOffsets: [UInt16] = [
        0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 25, 27, 29, 31,
        33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63,
        65, 67, 69, 71, 73, 75, 77, 79, 81, 83, 85, 88, 90, 92, 94, 96,
        98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118, 120, 122, 124, 126, 128,
        130, 133, 135, 138, 141, 143, 146, 148, 150, 153, 155, 157, 160, 163, 165, 167,
        169, 171, 173, 176, 179, 181, 184, 187, 189, 192, 195, 198, 200, 202, 205, 207,
        209, 211, 213, 216, 219, 222, 224, 227, 229, 231, 233, 236, 239, 241, 244, 246,
        248, 250, 253, 255, 258, 261, 264, 267, 270, 272, 274, 276, 278, 281, 284, 287,
        289, 291, 294, 296, 298, 301, 303, 306, 308, 311, 314, 317, 320, 323, 326, 329,
        332, 335, 338, 340, 343, 345, 347, 350, 352, 355, 357, 360, 363, 366, 368, 371,
        374, 376, 378, 380, 382, 384, 386, 389, 391, 393, 396, 399, 401, 403, 405, 407,
        410, 412, 414, 417, 420, 423, 425, 427, 429, 431, 433, 436, 439, 442, 444, 447,
        450, 453, 455, 458, 461, 464, 467, 469, 472, 474, 477, 480, 483, 486, 488, 491,
        493, 495, 497, 499, 502, 505, 508, 511, 514, 517, 519, 521, 523, 526, 528, 530,
        533, 535, 537, 540, 542, 544, 546, 549, 552, 554, 557, 559, 561, 563, 565, 567,
        569, 572, 574, 576, 578, 580, 582, 585, 588,
    ]
}
