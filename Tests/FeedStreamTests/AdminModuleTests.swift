// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// RSS 1.0's mod_admin (`http://webns.net/mvcb/`): `admin:generatorAgent` names the
/// software that made the feed by its `rdf:resource`, which feedparser documents as the
/// generator's address (`generator_detail.href`): it is `generator.uri`, on every backend,
/// whole or in 1-byte chunks, below Atom's own `generator/@uri`.
final class AdminModuleTests: XCTestCase {
    /// The feed line of `xml`, the same from every backend, whole and in 1-byte chunks.
    private func feedLine(_ xml: String) throws -> [String: Any] {
        try XCTUnwrap(linesFromEveryBackendAndCut(xml).first { $0["kind"] as? String == "feed" })
    }

    private let rdf = """
        <?xml version="1.0"?>
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
          xmlns:admin="http://webns.net/mvcb/">
        <channel rdf:about="http://example.com/"><title>t</title><link>http://example.com/</link>
        <admin:generatorAgent rdf:resource="http://www.example.org/generator/?v=3.2"/>
        <admin:errorReportsTo rdf:resource="mailto:admin@example.com"/>
        </channel><item rdf:about="http://example.com/1"><title>i</title><link>http://example.com/1</link></item>
        </rdf:RDF>
        """

    func testGeneratorAgentIsTheGeneratorsAddress() throws {
        let feed = try feedLine(rdf)
        let generator = try XCTUnwrap(feed["generator"] as? [String: Any])
        XCTAssertEqual(generator as NSDictionary, ["uri": "http://www.example.org/generator/?v=3.2"] as NSDictionary)
        // errorReportsTo is a member of its own, no extension element.
        XCTAssertEqual(feed["error_reports_to"] as? String, "mailto:admin@example.com")
        XCTAssertNil(feed["extensions"])
    }

    func testAtomsGeneratorURIWinsWhateverTheOrder() throws {
        for agentFirst in [true, false] {
            let agent = #"<admin:generatorAgent xmlns:admin="http://webns.net/mvcb/" "#
                + #"xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" rdf:resource="http://agent.example/"/>"#
            let atom = #"<generator uri="http://atom.example/" version="2">Gen</generator>"#
            let xml = #"<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>"#
                + (agentFirst ? agent + atom : atom + agent) + "</feed>"
            let generator = try XCTUnwrap(try feedLine(xml)["generator"] as? [String: Any])
            XCTAssertEqual(generator as NSDictionary, ["name": "Gen", "uri": "http://atom.example/", "version": "2"] as NSDictionary,
                           "agent first: \(agentFirst)")
        }
    }
}
