// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Every text construct carries its details (type, language, base),
/// and relative URIs are resolved against xml:base (RFC 3986 §5.2) in URL members and
/// inside HTML and XHTML content, on every backend.
final class TextDetailsTests: XCTestCase {
    private static let atom = """
        <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/blog/" xml:lang="en">
        <title type="html" xml:base="/other/">&lt;a href="t.html"&gt;T&lt;/a&gt;</title>
        <subtitle xml:lang="fr">Sous-titre</subtitle>
        <rights type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><a href="license">L</a></div></rights>
        <logo>img/logo.png</logo>
        <entry xml:base="2024/">
          <id>urn:e</id><title>Plain &lt;a href="x"&gt;</title>
          <summary type="html">&lt;p&gt;&lt;img src="pic.png" alt="a"&gt; &lt;a href='../up.html'&gt;up&lt;/a&gt;
            &lt;a href="http://abs.example/x"&gt;abs&lt;/a&gt; &lt;a href="mailto:a@b.c"&gt;m&lt;/a&gt;
            &lt;!-- &lt;a href="in-comment"&gt; --&gt;&lt;form action=post.cgi&gt;&lt;/form&gt;&lt;/p&gt;</summary>
          <content type="xhtml" xml:base="http://cdn.example/media/"><div xmlns="http://www.w3.org/1999/xhtml"><p><a href="a/../b.html#f" title="href=keep">b</a><video poster="p.jpg" src="v.mp4"></video><blockquote cite="/q">q</blockquote></p></div></content>
          <link rel="enclosure" href="e.mp3" type="audio/mpeg" length="1"/>
        </entry>
        </feed>
        """

    func testTextConstructsCarryTypeLanguageAndBase() throws {
        let l = try lines(Self.atom)
        let item = l[0], feed = l[1]
        XCTAssertEqual(feed["title_type"] as? String, "html")
        XCTAssertEqual(feed["title_base"] as? String, "http://example.org/other/")
        XCTAssertEqual(feed["subtitle_type"] as? String, "text")
        XCTAssertEqual(feed["subtitle_lang"] as? String, "fr")
        XCTAssertEqual(feed["subtitle_base"] as? String, "http://example.org/blog/")
        XCTAssertEqual(feed["rights_type"] as? String, "xhtml")
        XCTAssertEqual(feed["rights_base"] as? String, "http://example.org/blog/")
        XCTAssertEqual(item["title_base"] as? String, "http://example.org/blog/2024/")
        XCTAssertEqual(item["summary_base"] as? String, "http://example.org/blog/2024/")
        XCTAssertEqual(item["content_base"] as? String, "http://cdn.example/media/")
        XCTAssertNil(item["title_lang"], "the record's own language is not repeated")
        // No xml:base in scope: no base member.
        let rss = try lines("<rss version=\"2.0\"><channel><title>c</title><item><title>t</title></item></channel></rss>")
        XCTAssertNil(rss[0]["title_base"])
        XCTAssertEqual(rss[0]["title_type"] as? String, "text")
    }

    func testRelativeURIsInsideHTMLAndXHTMLAreResolvedAgainstTheirBase() throws {
        let l = try lines(Self.atom)
        let item = l[0], feed = l[1]
        XCTAssertEqual(feed["title"] as? String, "<a href=\"http://example.org/other/t.html\">T</a>")
        XCTAssertEqual(feed["rights"] as? String, "<a href=\"http://example.org/blog/license\">L</a>")
        XCTAssertEqual(item["title"] as? String, "Plain <a href=\"x\">", "text is not markup")
        XCTAssertEqual(item["summary"] as? String, """
            <p><img src="http://example.org/blog/2024/pic.png" alt="a"> <a href='http://example.org/blog/up.html'>up</a>
                <a href="http://abs.example/x">abs</a> <a href="mailto:a@b.c">m</a>
                <!-- <a href="in-comment"> --><form action=http://example.org/blog/2024/post.cgi></form></p>
            """)
        XCTAssertEqual(item["content"] as? String,
                       "<p><a href=\"http://cdn.example/media/b.html#f\" title=\"href=keep\">b</a>"
                       + "<video poster=\"http://cdn.example/media/p.jpg\" src=\"http://cdn.example/media/v.mp4\"/>"
                       + "<blockquote cite=\"http://cdn.example/q\">q</blockquote></p>")
        // URL members: enclosures and logos too.
        XCTAssertEqual((item["enclosures"] as? [[String: Any]])?.first?["url"] as? String, "http://example.org/blog/2024/e.mp3")
        XCTAssertEqual(feed["logo"] as? String, "http://example.org/blog/img/logo.png")
    }

    func testXMLBaseInsideXHTMLContentAppliesToItsSubtree() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/a/"><title>t</title>
            <entry><id>1</id><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">\
            <p xml:base="sub/"><a href="x.html">x</a><span xml:base="/root/"><img src="i.png"/></span>\
            <a href="y.html">y</a></p><a href="z.html">z</a><br xml:base="http://elsewhere.example/"/>\
            <a href="w.html">w</a></div></content>
            <summary type="html">&lt;p xml:base="ignored/"&gt;&lt;a href="h.html"&gt;h&lt;/a&gt;&lt;/p&gt;</summary>
            </entry></feed>
            """)
        XCTAssertEqual(l[0]["content"] as? String,
                       "<p xml:base=\"sub/\"><a href=\"http://example.org/a/sub/x.html\">x</a>"
                       + "<span xml:base=\"/root/\"><img src=\"http://example.org/root/i.png\"/></span>"
                       + "<a href=\"http://example.org/a/sub/y.html\">y</a></p><a href=\"http://example.org/a/z.html\">z</a>"
                       + "<br xml:base=\"http://elsewhere.example/\"/><a href=\"http://example.org/a/w.html\">w</a>")
        XCTAssertEqual(l[0]["summary"] as? String,
                       "<p xml:base=\"ignored/\"><a href=\"http://example.org/a/h.html\">h</a></p>",
                       "HTML has no xml:base")
    }

    func testEverySrcsetCandidateIsResolved() throws {
        let l = try lines("""
            <rss version="2.0"><channel xml:base="http://example.com/blog/"><title>c</title><item><title>i</title>
            <description>&lt;img src="a.png" srcset="a.png 1x,b.png 2x , /c.png 640w,http://cdn.example/d.png 3x"&gt;\
            &lt;img srcset="only.png"&gt;</description></item></channel></rss>
            """)
        XCTAssertEqual(l[0]["summary"] as? String,
                       "<img src=\"http://example.com/blog/a.png\" srcset=\"http://example.com/blog/a.png 1x,"
                       + "http://example.com/blog/b.png 2x , http://example.com/c.png 640w,http://cdn.example/d.png 3x\">"
                       + "<img srcset=\"http://example.com/blog/only.png\">")
    }

    /// HTML strips white space around a URL attribute's value before reading it as a URL:
    /// an absolute URL written with spaces or a line break around it stays as it is (it was
    /// taken for a relative one and the base put before it), a relative one is resolved
    /// without them; the spaces stay where they were written.
    func testWhiteSpaceAroundAURLInMarkupIsNotPartOfIt() throws {
        let l = try lines("""
            <rss version="2.0"><channel xml:base="http://example.com/blog/"><title>c</title><item><title>i</title>
            <description>&lt;a href=" http://abs.example/a "&gt;a&lt;/a&gt; &lt;img src="&#10; https://cdn.example/i.png"&gt;\
            &lt;a href=" rel.html "&gt;r&lt;/a&gt; &lt;a href="  "&gt;e&lt;/a&gt; &lt;a href=" mailto:a@b.c"&gt;m&lt;/a&gt;\
            </description></item></channel></rss>
            """)
        XCTAssertEqual(l[0]["summary"] as? String,
                       "<a href=\" http://abs.example/a \">a</a> <img src=\"\n https://cdn.example/i.png\">"
                       + "<a href=\" http://example.com/blog/rel.html \">r</a> <a href=\"  \">e</a> <a href=\" mailto:a@b.c\">m</a>")
    }

    func testRSSImageCommentsAndDocsAreResolvedAgainstTheBase() throws {
        let l = try lines("""
            <rss version="2.0" xml:base="http://example.com/feed/" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
              xmlns:wfw="http://wellformedweb.org/CommentAPI/"><channel><title>c</title><docs>../docs.html</docs>
            <image><url>logo.png</url><link>/</link><title>i</title></image><itunes:image href="art.jpg"/>
            <item><title>t</title><comments>c/1</comments><wfw:commentRss>c/1.rss</wfw:commentRss>
            <description>&lt;img src="i.png"&gt;</description></item></channel></rss>
            """)
        let item = l[0], feed = l[1]
        XCTAssertEqual(item["comments"] as? String, "http://example.com/feed/c/1")
        XCTAssertEqual(item["comments_feed"] as? String, "http://example.com/feed/c/1.rss")
        XCTAssertEqual(item["summary"] as? String, "<img src=\"http://example.com/feed/i.png\">")
        XCTAssertEqual(feed["docs"] as? String, "http://example.com/docs.html")
        XCTAssertEqual((feed["image"] as? [String: Any])?["url"] as? String, "http://example.com/feed/logo.png")
        XCTAssertEqual((feed["image"] as? [String: Any])?["link"] as? String, "http://example.com/")
        XCTAssertEqual((feed["itunes"] as? [String: Any])?["image"] as? String, "http://example.com/feed/art.jpg")
    }

    func testContentCanBeKeptAsWritten() throws {
        for keep in [false, true] {
            var outputs: [String] = []
            for backend in FeedBackend.allCases {
                let out = MemoryOutput()
                let writer = JSONLinesWriter(output: out)
                writer.resolvesRelativeURIsInContent = !keep
                writer.source = "t"
                _ = try backend.makeParser().parse(.bytes(Array(Self.atom.utf8)), handler: writer)
                try writer.flush()
                outputs.append(out.string)
            }
            XCTAssertEqual(Set(outputs).count, 1, "backends differ")
            let item = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outputs[0].split(separator: "\n")[0].utf8)) as? [String: Any])
            let content = item["content"] as? String
            XCTAssertEqual(content?.hasPrefix(keep ? "<p><a href=\"a/../b.html#f\"" : "<p><a href=\"http://cdn.example/media/b.html#f\""), true, content ?? "nil")
            // Links are resolved either way.
            XCTAssertEqual((item["enclosures"] as? [[String: Any]])?.first?["url"] as? String, "http://example.org/blog/2024/e.mp3")
        }
    }
}

extension TextDetailsTests {
    // RFC 3986 §5.1.3-4: with no base in the content, the base is the document's own
    // location; xml:base values are themselves resolved against it (XML Base §4.2).
    func testTheDocumentsLocationIsTheOutermostBase() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><link href="/home"/>
            <entry xml:base="posts/"><id>urn:e</id><title>e</title><link href="one.html"/>
            <content type="html">&lt;img src="a.png"&gt;</content></entry></feed>
            """
        var outputs: [String] = []
        for backend in FeedBackend.allCases {
            let out = MemoryOutput()
            let writer = JSONLinesWriter(output: out)
            writer.documentLocation = "https://example.com/blog/feed.atom"
            _ = try backend.makeParser().parse(.bytes(Array(xml.utf8)), handler: writer)
            try writer.flush()
            outputs.append(out.string)
        }
        XCTAssertEqual(Set(outputs).count, 1, "backends differ")
        let l = try outputs[0].split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(l[0]["link"] as? String, "https://example.com/blog/posts/one.html")
        XCTAssertEqual(l[0]["content"] as? String, "<img src=\"https://example.com/blog/posts/a.png\">")
        XCTAssertEqual(l[0]["content_base"] as? String, "https://example.com/blog/posts/")
        XCTAssertEqual(l[0]["title_base"] as? String, "https://example.com/blog/posts/")
        XCTAssertEqual(l[1]["link"] as? String, "https://example.com/home")
        XCTAssertEqual(l[1]["title_base"] as? String, "https://example.com/blog/feed.atom")
        // Unknown location: relative references stay relative.
        let plain = try lines(xml)
        XCTAssertEqual(plain[0]["link"] as? String, "posts/one.html")
        XCTAssertEqual(plain[0]["content"] as? String, "<img src=\"posts/a.png\">")
        XCTAssertEqual(plain[1]["link"] as? String, "/home")
    }
}

/// The value model (`FeedItem`, `Feed`) carries the text constructs as the JSON writer
/// writes them: base64 decoded, relative URIs in markup resolved.
final class ValueModelTextTests: XCTestCase {
    func testFeedItemTextIsWhatTheJSONLineSays() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/"><title type="html">&lt;a href="t"&gt;T&lt;/a&gt;</title>
            <entry><id>1</id><title>plain</title>
            <summary type="html">&lt;a href="s.html"&gt;s&lt;/a&gt;</summary>
            <content type="application/octet-stream">aGVsbG8gd29ybGQ=</content>
            <rights type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><a href="r">r</a></div></rights></entry></feed>
            """
        for backend in FeedBackend.allCases {
            let docs = try FeedStream.documents(from: .bytes(Array(xml.utf8)), backend: backend)
            let item = try XCTUnwrap(docs.first?.items.first, "\(backend)")
            XCTAssertEqual(item.summary, FeedText(value: "<a href=\"http://example.org/s.html\">s</a>", type: "html"))
            XCTAssertEqual(item.content, FeedText(value: "hello world", type: "application/octet-stream"))
            XCTAssertEqual(item.rights, FeedText(value: "<a href=\"http://example.org/r\">r</a>", type: "xhtml"))
            XCTAssertEqual(item.title, FeedText(value: "plain"))
            XCTAssertEqual(docs.first?.feed.title, FeedText(value: "<a href=\"http://example.org/t\">T</a>", type: "html"))
        }
    }
}
