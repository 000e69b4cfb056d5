// SPDX-License-Identifier: Apache-2.0
/// A person (author, contributor). Atom persons come as written; a person written as
/// one text (RSS `author`, `dc:creator`, `dc:author`, `dc:contributor`) is split into
/// `name` and `email` when the text holds an email address, and kept as written in `raw`.
public struct FeedPersonView {
    /// The name (for a person written as text: the text, or its name part when it
    /// holds an email address).
    public let name: FeedBytes
    /// The email address.
    public let email: FeedBytes
    /// The URI, as written (unresolved).
    public let uri: FeedBytes
    /// The xml:base chain in scope (outermost first, separated by 0x01).
    package let baseChain: FeedBytes
    /// The text as written, for a person written as text whose text was split into a
    /// name and an email address; absent otherwise.
    public let raw: FeedBytes
    /// The URL of the person's image, as written (unresolved): Google Data's
    /// `gd:image` `src` (Blogger's profile image); absent otherwise.
    public let avatar: FeedBytes

    init(name: FeedBytes, email: FeedBytes, uri: FeedBytes, baseChain: FeedBytes, raw: FeedBytes = .absent,
         avatar: FeedBytes = .absent) {
        self.name = name
        self.email = email
        self.uri = uri
        self.baseChain = baseChain
        self.raw = raw
        self.avatar = avatar
    }

    /// True when the person names no one: no name, email or URI beyond white space (an
    /// empty `<author></author>`). The JSON lines and the models leave such a person out.
    package var isBlank: Bool { name.isBlank && email.isBlank && uri.isBlank }

    /// A person from a row of `authors` or `contributors`: Atom's columns, or the text
    /// column (PersonText).
    init(row: FeedRowView) {
        let text = row[4]
        if text.isPresent {
            self.init(text: text, baseChain: row[3], avatar: row[5])
        } else {
            self.init(name: row[0], email: row[1], uri: row[2], baseChain: row[3], avatar: row[5])
        }
    }

    /// A person written as text: split into name and email when the text holds an
    /// email address (the text kept in `raw`), else the text as the name.
    init(text: FeedBytes, baseChain: FeedBytes, avatar: FeedBytes = .absent) {
        if let (name, email) = PersonText.split(text) {
            self.init(name: name, email: email, uri: .absent, baseChain: baseChain, raw: text, avatar: avatar)
        } else {
            self.init(name: text, email: .absent, uri: .absent, baseChain: baseChain, avatar: avatar)
        }
    }

    /// A person written as text in a field (`managingEditor`, `webMaster`,
    /// `itunes:author`); nil unless the text holds an email address.
    static func split(field text: FeedBytes) -> FeedPersonView? {
        guard let (name, email) = PersonText.split(text) else { return nil }
        return FeedPersonView(name: name, email: email, uri: .absent, baseChain: .absent, raw: text)
    }
}
