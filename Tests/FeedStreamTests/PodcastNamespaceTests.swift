// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// The Podcasting 2.0 namespace (podcastindex.org namespace 1.0) and Podlove Simple
/// Chapters (podlove.org/simple-chapters), from their specifications, on every backend
/// (linesFromEveryBackend checks they agree). Values are kept as written.
final class PodcastNamespaceTests: XCTestCase {
    private func podcast(_ line: [String: Any]) -> [String: Any] { (line["podcast"] as? [String: Any]) ?? [:] }

    private func strings(_ o: [String: Any]) -> [String: String] { o.compactMapValues { $0 as? String } }

    private func rows(_ o: Any?) -> [[String: String]] {
        ((o as? [[String: Any]]) ?? []).map { $0.compactMapValues { $0 as? String } }
    }

    private func rss(_ channel: String, items: String) -> String {
        """
        <rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0" \
        xmlns:psc="http://podlove.org/simple-chapters"><channel><title>c</title>
        \(channel)
        \(items)
        </channel></rss>
        """
    }

    func testSeasonNameEpisodeDisplaySoundbites() throws {
        let l = try lines(rss("", items: """
            <item><title>i</title>
            <podcast:season name="Race for the Whitehouse 2020">3</podcast:season>
            <podcast:episode display="Ch.3">204</podcast:episode>
            <podcast:soundbite startTime="73.0" duration="60.0">Why the Podcast Namespace Matters</podcast:soundbite>
            <podcast:soundbite startTime="1234.5" duration="42.25">Another one</podcast:soundbite>
            </item>
            """))
        let p = podcast(l[0])
        XCTAssertEqual(p["season"] as? String, "3")
        XCTAssertEqual(p["season_name"] as? String, "Race for the Whitehouse 2020")
        XCTAssertEqual(p["episode"] as? String, "204")
        XCTAssertEqual(p["episode_display"] as? String, "Ch.3")
        XCTAssertEqual(rows(p["soundbites"]), [
            ["start_time": "73.0", "duration": "60.0", "text": "Why the Podcast Namespace Matters"],
            ["start_time": "1234.5", "duration": "42.25", "text": "Another one"],
        ])
    }

    func testLocationLicenseImagesTxtOnFeedAndItem() throws {
        let l = try lines(rss("""
            <podcast:location geo="geo:30.2672,97.7431" osm="R113314">Austin, TX</podcast:location>
            <podcast:license url="https://example.org/mytoplicense.html">my-podcast-license-v1</podcast:license>
            <podcast:images srcset="https://example.com/images/ep1/pci_avatar-massive.jpg 1500w, https://example.com/images/ep1/pci_avatar-middle.jpg 600w"/>
            <podcast:image href="https://example.com/images/pci_avatar.jpg" alt="A logo" aspect-ratio="1/1" width="1500" type="image/jpeg" purpose="artwork social"/>
            <podcast:txt purpose="verify">S6lpp-7ZCn8-dZfGc-OoyaG</podcast:txt>
            <podcast:txt>naj3eEZaWVVY9a38uhX8FekACyhtqP4JN</podcast:txt>
            """, items: """
            <item><title>i</title>
            <podcast:location geo="geo:48.858093,2.294694" osm="W5013364" country="fr" rel="subject">Eiffel Tower, Paris</podcast:location>
            <podcast:location geo="geo:-27.86159,153.3169" rel="subject" osm="W43678282" country="au">Dreamworld (Queensland)</podcast:location>
            <podcast:license>cc-by-4.0</podcast:license>
            </item>
            """))
        let f = podcast(l[1]), i = podcast(l[0])
        XCTAssertEqual(rows(f["locations"]), [["text": "Austin, TX", "geo": "geo:30.2672,97.7431", "osm": "R113314"]])
        XCTAssertEqual(f["license"] as? String, "my-podcast-license-v1")
        XCTAssertEqual(f["license_url"] as? String, "https://example.org/mytoplicense.html")
        XCTAssertEqual(f["images_srcset"] as? String,
                       "https://example.com/images/ep1/pci_avatar-massive.jpg 1500w, https://example.com/images/ep1/pci_avatar-middle.jpg 600w")
        XCTAssertEqual(rows(f["images"]), [[
            "href": "https://example.com/images/pci_avatar.jpg", "alt": "A logo", "aspect_ratio": "1/1", "width": "1500",
            "type": "image/jpeg", "purpose": "artwork social",
        ]])
        XCTAssertEqual(rows(f["txt"]), [["text": "S6lpp-7ZCn8-dZfGc-OoyaG", "purpose": "verify"], ["text": "naj3eEZaWVVY9a38uhX8FekACyhtqP4JN"]])
        // A location may repeat (an episode about two places).
        XCTAssertEqual(rows(i["locations"]), [
            ["text": "Eiffel Tower, Paris", "geo": "geo:48.858093,2.294694", "osm": "W5013364", "country": "fr", "rel": "subject"],
            ["text": "Dreamworld (Queensland)", "geo": "geo:-27.86159,153.3169", "osm": "W43678282", "country": "au", "rel": "subject"],
        ])
        XCTAssertEqual(i["license"] as? String, "cc-by-4.0")
        XCTAssertNil(i["license_url"])
    }

    func testFeedLevelElements() throws {
        let l = try lines(rss("""
            <podcast:trailer pubdate="Thu, 01 Apr 2021 08:00:00 EST" url="https://example.org/trailers/teaser" length="12345678" type="audio/mp3">Coming April 1st, 2021</podcast:trailer>
            <podcast:trailer pubdate="Mon, 01 Jan 2024 08:00:00 GMT" url="https://example.org/trailers/s4" length="1" type="audio/mpeg" season="4">Season 4</podcast:trailer>
            <podcast:block>yes</podcast:block>
            <podcast:block id="google">no</podcast:block>
            <podcast:updateFrequency complete="true" dtstart="2023-01-01T00:00:00.000Z" rrule="FREQ=WEEKLY">Weekly</podcast:updateFrequency>
            <podcast:podping usesPodping="true"/>
            <podcast:chat server="irc.zeronode.net" protocol="irc" accountId="@jsmith" space="#podcastindex"/>
            <podcast:publisher><podcast:remoteItem medium="publisher" feedGuid="003af0a0-6a45-55cf-b765-68e3d349551a" feedUrl="https://agilesetmedia.com/assets/static/feeds/publisher.xml"/></podcast:publisher>
            <podcast:podroll>
              <podcast:remoteItem feedGuid="917393e3-1b1e-5cef-ace4-edaa54e1f810"/>
              <podcast:remoteItem feedGuid="2b62ef49-fcff-523c-b81a-0a7dde2b0609" feedUrl="https://example.com/feed.xml"/>
            </podcast:podroll>
            <podcast:remoteItem feedGuid="a94f5cc9-8c58-55fc-91fe-a324087a655b" itemGuid="https://podcastindex.org/podcast/4148683#1" medium="music"/>
            """, items: ""))
        let f = strings(podcast(l[0]))
        let p = podcast(l[0])
        XCTAssertEqual(rows(p["trailers"]), [
            ["url": "https://example.org/trailers/teaser", "pubdate": "Thu, 01 Apr 2021 08:00:00 EST", "length": "12345678",
             "type": "audio/mp3", "text": "Coming April 1st, 2021"],
            ["url": "https://example.org/trailers/s4", "pubdate": "Mon, 01 Jan 2024 08:00:00 GMT", "length": "1",
             "type": "audio/mpeg", "season": "4", "text": "Season 4"],
        ])
        XCTAssertEqual(rows(p["block"]), [["text": "yes"], ["text": "no", "id": "google"]])
        XCTAssertEqual(f["update_frequency"], "Weekly")
        XCTAssertEqual(f["update_frequency_complete"], "true")
        XCTAssertEqual(f["update_frequency_dtstart"], "2023-01-01T00:00:00.000Z")
        XCTAssertEqual(f["update_frequency_rrule"], "FREQ=WEEKLY")
        XCTAssertEqual(f["podping"], "true")
        XCTAssertEqual(f["chat_server"], "irc.zeronode.net")
        XCTAssertEqual(f["chat_protocol"], "irc")
        XCTAssertEqual(f["chat_account_id"], "@jsmith")
        XCTAssertEqual(f["chat_space"], "#podcastindex")
        XCTAssertEqual(f["publisher_feed_guid"], "003af0a0-6a45-55cf-b765-68e3d349551a")
        XCTAssertEqual(f["publisher_feed_url"], "https://agilesetmedia.com/assets/static/feeds/publisher.xml")
        XCTAssertEqual(f["publisher_medium"], "publisher")
        // The podroll's remote items, and those outside it, are two lists.
        XCTAssertEqual(rows(p["podroll"]), [
            ["feed_guid": "917393e3-1b1e-5cef-ace4-edaa54e1f810"],
            ["feed_guid": "2b62ef49-fcff-523c-b81a-0a7dde2b0609", "feed_url": "https://example.com/feed.xml"],
        ])
        XCTAssertEqual(rows(p["remote_items"]), [[
            "feed_guid": "a94f5cc9-8c58-55fc-91fe-a324087a655b", "item_guid": "https://podcastindex.org/podcast/4148683#1",
            "medium": "music",
        ]])
    }

    func testValueBlocksKeepTheirRecipients() throws {
        let l = try lines(rss("""
            <podcast:value type="lightning" method="keysend" suggested="0.00000005000">
              <podcast:valueRecipient name="Alice (Podcaster)" type="node" address="02d5c1bf8b940dc9cadca86d1b0a3c37fbe39cee4c7e839e33bef9174531d27f52" split="40"/>
              <podcast:valueRecipient name="Bob (Podcaster)" type="node" address="032f4ffbbafffbe51726ad3c164a3d0d37ec27bc67b29a159b0f49ae8ac21b8508" split="40"/>
              <podcast:valueRecipient name="Podcastindex.org" type="node" address="03ae9f91a0cb8ff43840e3c322c4c61f019d8c1c3cea15a25cfc425ac605e61a4a" split="10" fee="true"/>
            </podcast:value>
            <podcast:value type="hive" method="default">
              <podcast:valueRecipient name="podcastindex" type="account" address="podcastindex" customKey="memo" customValue="x" split="100"/>
            </podcast:value>
            """, items: """
            <item><title>i</title>
            <podcast:value type="lightning" method="keysend">
              <podcast:valueRecipient name="Guest" type="node" address="0300" split="100"/>
            </podcast:value></item>
            """))
        let f = podcast(l[1]), i = podcast(l[0])
        let values = (f["value"] as? [[String: Any]]) ?? []
        XCTAssertEqual(values.map { strings($0) }, [
            ["type": "lightning", "method": "keysend", "suggested": "0.00000005000"],
            ["type": "hive", "method": "default"],
        ])
        XCTAssertEqual(values.count, 2)
        XCTAssertEqual(rows(values.first?["recipients"]).map { $0["name"] ?? "" },
                       ["Alice (Podcaster)", "Bob (Podcaster)", "Podcastindex.org"])
        XCTAssertEqual(rows(values.first?["recipients"]).last, [
            "name": "Podcastindex.org", "type": "node",
            "address": "03ae9f91a0cb8ff43840e3c322c4c61f019d8c1c3cea15a25cfc425ac605e61a4a", "split": "10", "fee": "true",
        ])
        XCTAssertEqual(rows(values.last?["recipients"]), [[
            "name": "podcastindex", "type": "account", "address": "podcastindex", "custom_key": "memo",
            "custom_value": "x", "split": "100",
        ]])
        let itemValues = (i["value"] as? [[String: Any]]) ?? []
        XCTAssertEqual(itemValues.count, 1)
        XCTAssertEqual(rows(itemValues.first?["recipients"]), [["name": "Guest", "type": "node", "address": "0300", "split": "100"]])
    }

    func testValueTimeSplitsKeepTheirRecipientsAndRemoteItems() throws {
        let l = try lines(rss("", items: """
            <item><title>i</title>
            <podcast:value type="lightning" method="keysend">
              <podcast:valueRecipient name="Alice (Podcaster)" type="node" address="02d5c1" split="95"/>
              <podcast:valueTimeSplit startTime="60" duration="237" remotePercentage="95">
                <podcast:remoteItem itemGuid="https://podcastindex.org/podcast/4148683#1" feedGuid="a94f5cc9-8c58-55fc-91fe-a324087a655b" medium="music"/>
              </podcast:valueTimeSplit>
              <podcast:valueTimeSplit startTime="367" duration="246" remoteStartTime="174">
                <podcast:valueRecipient name="Alice (Podcaster)" type="node" address="02d5c1" split="85"/>
                <podcast:valueRecipient name="Bobjim (Guest)" type="node" address="032f4f" split="10"/>
              </podcast:valueTimeSplit>
              <podcast:valueRecipient name="Hosting Provider" type="node" address="03ae9f" split="5" fee="true"/>
            </podcast:value></item>
            """))
        let values = (podcast(l[0])["value"] as? [[String: Any]]) ?? []
        XCTAssertEqual(values.count, 1)
        let v = try XCTUnwrap(values.first)
        // The recipients of the value itself, also the one after the splits.
        XCTAssertEqual(rows(v["recipients"]), [
            ["name": "Alice (Podcaster)", "type": "node", "address": "02d5c1", "split": "95"],
            ["name": "Hosting Provider", "type": "node", "address": "03ae9f", "split": "5", "fee": "true"],
        ])
        let splits = (v["time_splits"] as? [[String: Any]]) ?? []
        XCTAssertEqual(splits.map { strings($0) }, [
            ["start_time": "60", "duration": "237", "remote_percentage": "95"],
            ["start_time": "367", "duration": "246", "remote_start_time": "174"],
        ])
        XCTAssertEqual(splits.count, 2)
        XCTAssertEqual(rows(splits.first?["remote_items"]), [[
            "feed_guid": "a94f5cc9-8c58-55fc-91fe-a324087a655b", "item_guid": "https://podcastindex.org/podcast/4148683#1",
            "medium": "music",
        ]])
        XCTAssertNil(splits.first?["recipients"])
        XCTAssertEqual(rows(splits.last?["recipients"]), [
            ["name": "Alice (Podcaster)", "type": "node", "address": "02d5c1", "split": "85"],
            ["name": "Bobjim (Guest)", "type": "node", "address": "032f4f", "split": "10"],
        ])
        XCTAssertNil(splits.last?["remote_items"])
        // Not the item's own remote items.
        XCTAssertNil(podcast(l[0])["remote_items"])
    }

    func testAlternateEnclosuresKeepTheirSourcesAndIntegrity() throws {
        let l = try lines(rss("", items: """
            <item><title>i</title>
            <podcast:alternateEnclosure type="audio/mpeg" length="43200000" bitrate="128000" default="true" title="Standard">
              <podcast:source uri="https://example.com/file-0.mp3"/>
              <podcast:source uri="ipfs://someRandomMpegFile"/>
              <podcast:integrity type="sri" value="sha384-ExVqijgYHm15PqQqdXfW95x+Rs6C+d6E/ICxyQOeFevnxNLR/wtJNrNYTjIysUBo"/>
            </podcast:alternateEnclosure>
            <podcast:alternateEnclosure type="video/mp4" length="7924786" bitrate="511276.52" height="720" lang="en" rel="video" codecs="avc1.4D401E">
              <podcast:source uri="https://example.com/file-720.mp4" contentType="video/mp4"/>
            </podcast:alternateEnclosure>
            </item>
            """))
        let alts = (podcast(l[0])["alternate_enclosures"] as? [[String: Any]]) ?? []
        XCTAssertEqual(alts.map { strings($0) }, [
            ["type": "audio/mpeg", "length": "43200000", "bitrate": "128000", "default": "true", "title": "Standard"],
            ["type": "video/mp4", "length": "7924786", "bitrate": "511276.52", "height": "720", "lang": "en", "rel": "video",
             "codecs": "avc1.4D401E"],
        ])
        XCTAssertEqual(alts.count, 2)
        XCTAssertEqual(rows(alts.first?["sources"]), [["uri": "https://example.com/file-0.mp3"], ["uri": "ipfs://someRandomMpegFile"]])
        XCTAssertEqual(rows(alts.first?["integrity"]), [[
            "type": "sri", "value": "sha384-ExVqijgYHm15PqQqdXfW95x+Rs6C+d6E/ICxyQOeFevnxNLR/wtJNrNYTjIysUBo",
        ]])
        XCTAssertEqual(rows(alts.last?["sources"]), [["uri": "https://example.com/file-720.mp4", "content_type": "video/mp4"]])
        XCTAssertNil(alts.last?["integrity"])
    }

    func testLiveItemsAreItems() throws {
        let l = try lines(rss("""
            <podcast:liveItem status="live" start="2021-09-26T07:30:00.000-0600" end="2021-09-26T09:30:00.000-0600">
              <title>Podcasting 2.0 Live Show</title>
              <guid>e32b4890-983b-4ce5-8b46-f2d6bc1d8819</guid>
              <enclosure url="https://example.com/pc20/livestream?format=.mp3" type="audio/mpeg" length="312"/>
              <podcast:contentLink href="https://example.com/html/livestream">Listen Live!</podcast:contentLink>
            </podcast:liveItem>
            """, items: """
            <item><title>regular</title>
            <podcast:socialInteract uri="https://podcastindex.social/web/@dave/108013847520053258" protocol="activitypub" accountId="@dave" accountUrl="https://podcastindex.social/web/@dave" priority="1"/>
            <podcast:socialInteract protocol="disabled"/>
            </item>
            """))
        XCTAssertEqual(l.count, 3)
        XCTAssertEqual(l[0]["title"] as? String, "Podcasting 2.0 Live Show")
        XCTAssertEqual(l[0]["id"] as? String, "e32b4890-983b-4ce5-8b46-f2d6bc1d8819")
        XCTAssertEqual(rows(l[0]["enclosures"]), [["url": "https://example.com/pc20/livestream?format=.mp3", "type": "audio/mpeg", "length": "312"]])
        let live = podcast(l[0])
        XCTAssertEqual(live["live_status"] as? String, "live")
        XCTAssertEqual(live["live_start"] as? String, "2021-09-26T07:30:00.000-0600")
        XCTAssertEqual(live["live_end"] as? String, "2021-09-26T09:30:00.000-0600")
        XCTAssertEqual(rows(live["content_links"]), [["href": "https://example.com/html/livestream", "text": "Listen Live!"]])
        XCTAssertEqual(l[1]["title"] as? String, "regular")
        XCTAssertNil(podcast(l[1])["live_status"])
        XCTAssertEqual(rows(podcast(l[1])["social_interacts"]), [
            ["uri": "https://podcastindex.social/web/@dave/108013847520053258", "protocol": "activitypub",
             "account_id": "@dave", "account_url": "https://podcastindex.social/web/@dave", "priority": "1"],
            ["protocol": "disabled"],
        ])
        XCTAssertEqual(l[2]["items"] as? Int, 2)
    }

    func testPodloveSimpleChapters() throws {
        let l = try lines(rss("", items: """
            <item><title>i</title>
            <psc:chapters version="1.2">
              <psc:chapter start="00:00:00.000" title="Welcome"/>
              <psc:chapter start="00:03:07.000" title="Introducing Podlove" href="http://podlove.org/"/>
              <psc:chapter start="00:08:26.000" title="Podlove WordPress Plugin" href="http://podlove.org/podlove-podcast-publisher" image="http://example.com/plugin.png"/>
              <psc:chapter start="01:02:03.5" title="Resumée"/>
            </psc:chapters></item>
            <item><title>none</title></item>
            """))
        let psc = (l[0]["psc"] as? [String: Any]) ?? [:]
        XCTAssertEqual(psc["version"] as? String, "1.2")
        XCTAssertEqual(rows(psc["chapters"]), [
            ["start": "00:00:00.000", "title": "Welcome"],
            ["start": "00:03:07.000", "title": "Introducing Podlove", "href": "http://podlove.org/"],
            ["start": "00:08:26.000", "title": "Podlove WordPress Plugin", "href": "http://podlove.org/podlove-podcast-publisher",
             "image": "http://example.com/plugin.png"],
            ["start": "01:02:03.5", "title": "Resumée"],
        ])
        XCTAssertNil(l[1]["psc"])
    }

    /// Readers query the first `psc:chapters` block's `version` and `chapters`
    /// (feedparser's `psc_chapters` is the first block); a block after it is kept
    /// apart, in `later_blocks`, not merged into the first.
    func testChaptersBlocksAfterTheFirstAreKeptApart() throws {
        let l = try linesFromEveryBackendAndCut(rss("", items: """
            <item><title>i</title>
            <psc:chapters version="1.2"><psc:chapter start="00:00:00.000" title="A"/>            <psc:chapter start="1:02.5" title="B" href="http://example.com/b"/></psc:chapters>
            <psc:chapters version="1.1"><psc:chapter start="10" title="C"/></psc:chapters>
            <psc:chapters><psc:chapter start="00:01:00" title="D" image="http://example.com/d.png"/></psc:chapters>
            <psc:chapters version="1.2"/>
            </item>
            <item><title>one</title><psc:chapters version="1.2"><psc:chapter start="3" title="E"/></psc:chapters></item>
            <item><title>empty</title><psc:chapters/></item>
            """))
        XCTAssertEqual(l.count, 4)
        let psc = try XCTUnwrap(l[0]["psc"] as? [String: Any])
        XCTAssertEqual(Set(psc.keys), ["version", "chapters", "later_blocks"])
        XCTAssertEqual(psc["version"] as? String, "1.2")
        XCTAssertEqual(rows(psc["chapters"]), [
            ["start": "00:00:00.000", "title": "A"], ["start": "1:02.5", "title": "B", "href": "http://example.com/b"],
        ])
        XCTAssertEqual((psc["chapters"] as? [[String: Any]])?.compactMap { $0["start_seconds"] as? Double }, [0, 62.5])
        let later = try XCTUnwrap(psc["later_blocks"] as? [[String: Any]])
        XCTAssertEqual(later.count, 3)
        XCTAssertEqual(later.map { $0["version"] as? String }, ["1.1", nil, "1.2"])
        XCTAssertEqual(rows(later[0]["chapters"]), [["start": "10", "title": "C"]])
        XCTAssertEqual(rows(later[1]["chapters"]), [["start": "00:01:00", "title": "D", "image": "http://example.com/d.png"]])
        XCTAssertEqual((later[1]["chapters"] as? [[String: Any]])?.first?["start_seconds"] as? Double, 60)
        XCTAssertNil(later[2]["chapters"])
        // One block: no later_blocks. An empty block gives nothing.
        let one = try XCTUnwrap(l[1]["psc"] as? [String: Any])
        XCTAssertEqual(Set(one.keys), ["version", "chapters"])
        XCTAssertEqual(rows(one["chapters"]), [["start": "3", "title": "E"]])
        XCTAssertNil(l[2]["psc"])
    }

    /// The value model names the blocks as the JSON line does.
    func testChaptersBlocksInTheValueModel() throws {
        let docs = try documents(from: Array(rss("", items: """
            <item><title>i</title><psc:chapters version="1.2"><psc:chapter start="0" title="A"/></psc:chapters>            <psc:chapters version="1.1"><psc:chapter start="5" title="B"/><psc:chapter start="9" title="C"/></psc:chapters>            <psc:chapters version="1.0"><psc:chapter start="7" title="D"/></psc:chapters></item>
            """).utf8))
        let item = try XCTUnwrap(docs.first?.items.first)
        XCTAssertEqual(item.extensions["psc.version"], "1.2")
        XCTAssertEqual(item.extensionLists["psc.chapters"]?.map { $0["title"] }, ["A"])
        XCTAssertEqual(item.extensionLists["psc.later_blocks"], [["version": "1.1"], ["version": "1.0"]])
        XCTAssertEqual(item.extensionLists["psc.later_blocks.chapters"]?.map { [$0["title"], $0["parent_row"]] },
                       [["B", "0"], ["C", "0"], ["D", "1"]])
    }

    func testChildRowsInTheValueModel() throws {
        let docs = try documents(from: Array(rss("""
            <podcast:value type="lightning" method="keysend"><podcast:valueRecipient name="A" split="1"/></podcast:value>
            <podcast:value type="hive" method="default"><podcast:valueRecipient name="B" split="2"/>\
            <podcast:valueTimeSplit startTime="1" duration="2"><podcast:valueRecipient name="D"/></podcast:valueTimeSplit>\
            <podcast:valueTimeSplit startTime="3" duration="4"><podcast:valueRecipient name="E"/></podcast:valueTimeSplit>\
            <podcast:valueRecipient name="C" split="3"/></podcast:value>
            """, items: "<item><title>i</title></item>").utf8))
        let feed = try XCTUnwrap(docs.first?.feed)
        XCTAssertEqual(feed.extensionLists["podcast.value"], [["type": "lightning", "method": "keysend"], ["type": "hive", "method": "default"]])
        XCTAssertEqual(feed.extensionLists["podcast.value.recipients"], [
            ["name": "A", "split": "1", "parent_row": "0"], ["name": "B", "split": "2", "parent_row": "1"],
            ["name": "C", "split": "3", "parent_row": "1"],
        ])
        // Two levels: a split's recipients name the split's row in the flattened list.
        XCTAssertEqual(feed.extensionLists["podcast.value.time_splits"], [
            ["start_time": "1", "duration": "2", "parent_row": "1"], ["start_time": "3", "duration": "4", "parent_row": "1"],
        ])
        XCTAssertEqual(feed.extensionLists["podcast.value.time_splits.recipients"], [
            ["name": "D", "parent_row": "0"], ["name": "E", "parent_row": "1"],
        ])
    }
}
