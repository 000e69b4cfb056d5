// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
import FeedStreamSwift
import FeedStreamNative

/// The parser backends this build provides, by the names the command line uses: the
/// backend as a value, for choosing at run time (the generic functions that take a
/// parser type, e.g. ``documents(from:parser:)-(FeedInput,_)``, choose at compile time).
public enum FeedBackend: String, CaseIterable, Sendable {
    /// expat under the C core (``ExpatFeedParser``).
    case expat
    /// libxml2's SAX2 push parser under the C core (``LibXML2FeedParser``).
    case libxml2
    /// The pure-Swift parser (``SwiftFeedParser``), the fastest: the default (``default``).
    case swift

    /// The backend used where none is named: the command line's `--backend`, and every
    /// function of this module that takes a `backend:` (the one place it is written).
    public static let `default`: FeedBackend = .swift

    /// A new parser of this backend (`strict`: no recovery path; see the backends' inits).
    public func makeParser(maxItemBytes: Int = 0, limits: FeedLimits = .default, strict: Bool = false) -> any FeedParser {
        switch self {
        case .expat: ExpatFeedParser(maxItemBytes: maxItemBytes, limits: limits, strict: strict)
        case .libxml2: LibXML2FeedParser(maxItemBytes: maxItemBytes, limits: limits, strict: strict)
        case .swift: SwiftFeedParser(maxItemBytes: maxItemBytes, limits: limits, strict: strict)
        }
    }
}
