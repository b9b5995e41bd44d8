import Foundation
import TestSupport
import XCTest
import YUVBatch
import YUVIO

/// The batch plan in process, on temporary folders: what each input is named and written as, which shares
/// the shards take, and what is refused before anything is written.
final class BatchPlanTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws { root = try scratchFolder("yuvbatch").path }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Empty files at `names` below the temporary folder (folders made as needed).
    func touch(_ names: String...) throws {
        for name in names {
            let path = root + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            XCTAssert(FileManager.default.createFile(atPath: path, contents: Data()))
        }
    }

    /// The plan's outputs, relative to the temporary folder.
    func outputs(_ plan: BatchPlan) -> [String] {
        plan.items.map { $0.output.hasPrefix(root + "/") ? String($0.output.dropFirst(root.count + 1)) : $0.output }
    }

    /// The error planning throws, or a failure when it plans.
    func refusal(_ make: () throws(BatchPlanError) -> BatchPlan, file: StaticString = #filePath,
                 line: UInt = #line) -> BatchPlanError? {
        do {
            let plan = try make()
            XCTFail("planned \(plan.items.map(\.output)) instead of refusing", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testTemplateExpansion() {
        let item = BatchItem(input: "photos/2024/beach.day.JPG", dir: "2024")
        let nv12 = OutputFormat.raw(.nv12)
        XCTAssertEqual(BatchPlan.outputName("{stem}.{ext}", item: item, format: nv12), "beach.day.nv12")
        XCTAssertEqual(BatchPlan.outputName("{name}.{format}", item: item, format: .raw(.yuv420p)), "beach.day.JPG.yuv420p")
        XCTAssertEqual(BatchPlan.outputName("{dir}/{stem}.{ext}", item: item, format: .png), "2024/beach.day.png")
        XCTAssertEqual(BatchPlan.outputName("{stem}.{ext}", item: item, format: .jpeg), "beach.day.jpg")
        // An empty {dir} leaves no leading or doubled slash; leading "./" goes too.
        let top = BatchItem(input: "a.png", dir: "")
        XCTAssertEqual(BatchPlan.outputName("{dir}/{stem}.{ext}", item: top, format: nv12), "a.nv12")
        XCTAssertEqual(BatchPlan.outputName("./x//{dir}//{stem}.y4m", item: top, format: nv12), "x/a.y4m")
        XCTAssertEqual(BatchPlan.outputName("/{stem}", item: top, format: nv12), "a")
    }

    /// "in/" means the folder's contents, "in" the folder itself: {dir} then starts with its name.
    func testDirOfAFolderWithAndWithoutSlash() throws {
        try touch("in/a.png", "in/sub/b.jpg", "in/notes.txt", "in/.hidden.png")
        let contents = try BatchPlan(operands: [root + "/in/"], outputFolder: root + "/out/", template: "{dir}/{stem}.{ext}",
                                     recursive: true)
        XCTAssertEqual(outputs(contents), ["out/a.nv12", "out/sub/b.nv12"])
        XCTAssertEqual(contents.items.map(\.dir), ["", "sub"])
        let folder = try BatchPlan(operands: [root + "/in"], outputFolder: root + "/out/", template: "{dir}/{stem}.{ext}",
                                   recursive: true)
        XCTAssertEqual(outputs(folder), ["out/in/a.nv12", "out/in/sub/b.nv12"])
        // Without -r the subfolder is not read.
        let flat = try BatchPlan(operands: [root + "/in/"], outputFolder: root + "/out/")
        XCTAssertEqual(flat.items.map(\.input), [root + "/in/a.png"])
    }

    func testShardsCoverEveryFileOnce() throws {
        let names = (0..<23).map { String(format: "in/f%02d.png", $0) }
        for name in names { try touch(name) }
        let whole = try BatchPlan(operands: [root + "/in/"], outputFolder: root + "/out/").items.map(\.input)
        XCTAssertEqual(whole, names.map { root + "/" + $0 })
        for n in [1, 2, 5, 23, 30] {
            var seen: [String] = []
            for k in 1...n {
                let share = try BatchPlan(operands: [root + "/in/"], outputFolder: root + "/out/", shard: (k, n)).items
                XCTAssertLessThanOrEqual(share.count, (whole.count + n - 1) / n)
                seen += share.map(\.input)
            }
            XCTAssertEqual(seen.sorted(), whole, "shards of \(n)")
        }
    }

    /// Inputs are sorted whatever the order given, before sharding.
    func testInputsSorted() throws {
        try touch("c.png", "a.png", "b.jpg")
        let plan = try BatchPlan(operands: [root + "/c.png", root + "/a.png", root + "/b.jpg"], outputFolder: root + "/out/")
        XCTAssertEqual(outputs(plan), ["out/a.nv12", "out/b.nv12", "out/c.nv12"])
    }

    func testNameClashRefused() throws {
        try touch("x/a.png", "y/a.png")
        let error = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [root + "/x/", root + "/y/"], outputFolder: root + "/out/")
        }
        guard case .sameOutput(let first, let second, let output, _, _)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual([first, second, output], [root + "/x/a.png", root + "/y/a.png", root + "/out/a.nv12"])
        XCTAssertTrue(error!.isUsage)
        // {dir} tells them apart.
        let plan = try BatchPlan(operands: [root + "/x", root + "/y"], outputFolder: root + "/out/", template: "{dir}/{name}.{ext}")
        XCTAssertEqual(outputs(plan), ["out/x/a.png.nv12", "out/y/a.png.nv12"])
    }

    /// The clash's hint is a template tried on the two inputs: it tells them apart, or there is none. (It said
    /// '{dir}/{stem}.{ext}' for files given one by one, whose {dir} is empty: the same clash again.)
    func testNameClashHintSeparatesThem() throws {
        try touch("x/a.png", "y/a.png", "e/b.png", "e/b.jpg", "t/d1/a.jpg", "t/d1/a.png", "t/d2/a.jpg")
        func hint(_ operands: [String], _ template: String = "{stem}.{ext}") -> String?? {
            let error = refusal { () throws(BatchPlanError) in
                try BatchPlan(operands: operands.map { root + "/" + $0 }, outputFolder: root + "/out/", template: template)
            }
            guard case .sameOutput(_, _, _, let hint, _)? = error else { XCTFail("\(String(describing: error))"); return nil }
            return .some(hint)
        }
        XCTAssertEqual(hint(["x/a.png", "y/a.png"]), .some(nil), "given one by one: no template separates them")
        XCTAssertEqual(hint(["x/", "y/"]), .some(nil), "their contents: {dir} is empty")
        // One name in two folders: the template under its {dir}, keeping {stem} (README's own example).
        XCTAssertEqual(hint(["x", "y"]), "{dir}/{stem}.{ext}")
        XCTAssertEqual(hint(["x", "y"], "{name}.{ext}"), "{dir}/{name}.{ext}")
        XCTAssertEqual(hint(["e/b.png", "e/b.jpg"]), "{name}.{ext}")
        XCTAssertEqual(hint(["e/"]), "{name}.{ext}")
        XCTAssertEqual(hint(["e/b.png", "e/b.jpg"], "{stem}.y4m"), "{name}.y4m", "the format asked for stays")
        // A template naming neither {stem} nor {name}: the plain ones.
        XCTAssertEqual(hint(["e/b.png", "e/b.jpg"], "frame.{ext}"), "{name}.{ext}")
        XCTAssertEqual(hint(["x/a.png", "e/b.png"], "{dir}/frame.{ext}"), "{name}.{ext}")
        XCTAssertEqual(hint(["e"], "{dir}/frame.{ext}"), "{name}.{ext}")
        // A template that names its format (`o.png`): its extension kept, so the format it asks for stays — no
        // hint was given (`{name}.{ext}` changes the format), and the message said their names were the same.
        XCTAssertEqual(hint(["x/a.png", "e/b.png"], "o.png"), "{stem}.png")
        XCTAssertEqual(hint(["e/b.png", "e/b.jpg"], "o.jpg"), "{name}.jpg")
        XCTAssertEqual(hint(["x/a.png", "e/b.png"], "sub/o-{format}.y4m"), "sub/{stem}.y4m")
        // Both kinds of clash in one batch: a hint for the whole batch, not for the first pair only.
        let tree = refusal { () throws(BatchPlanError) in
            let inputs = try BatchInputs(operands: [root + "/t/"], recursive: true)
            return try BatchPlan(inputs, outputFolder: BatchOutputFolder(root + "/out/"))
        }
        guard case .sameOutput(_, _, _, let treeHint, _)? = tree else { return XCTFail("\(String(describing: tree))") }
        XCTAssertEqual(treeHint, "{dir}/{name}.{ext}")
        for (operands, asked) in [(["x/a.png", "e/b.png"], "o.png"), (["e/b.png", "e/b.jpg"], "o.jpg")] {
            guard let found = hint(operands, asked), let template = found else { XCTFail("no hint for \(asked)"); continue }
            XCTAssertNoThrow(try BatchPlan(operands: operands.map { root + "/" + $0 }, outputFolder: root + "/out/",
                                           template: template), "\(operands) with \(template)")
        }
        for operands in [["x", "y"], ["e/b.png", "e/b.jpg"], ["e"]] {
            let template = hint(operands)!!
            XCTAssertNoThrow(try BatchPlan(operands: operands.map { root + "/" + $0 }, outputFolder: root + "/out/",
                                           template: template), "\(operands) with \(template)")
        }
    }

    /// A hint never names --update's manifest (following '{dir}/.yuvconv-manifest' refused every file), and one
    /// that tells the two apart but leads to the next clash says so (`partial`): the batch has files of one name
    /// whose {dir} is empty, which no template tells apart.
    func testNameClashHintIsNeverTheManifestAndSaysWhenItIsPartial() throws {
        try touch("x/a.png", "y/a.png", "cl/x/p.png", "cl/x/p.jpg", "cl2/x/p.png")
        func clash(_ operands: [String], _ template: String) -> (String?, Bool)? {
            let error = refusal { () throws(BatchPlanError) in
                try BatchPlan(operands: operands.map { root + "/" + $0 }, outputFolder: root + "/out/", template: template)
            }
            guard case .sameOutput(_, _, _, let hint, let partial)? = error else { XCTFail("\(String(describing: error))"); return nil }
            return (hint, partial)
        }
        let manifest = try XCTUnwrap(clash(["x", "y"], ".yuvconv-manifest"))
        XCTAssertEqual(manifest.0, "{dir}/{name}.{ext}")
        XCTAssertFalse(manifest.1)
        let partial = try XCTUnwrap(clash(["cl/x/", "cl2/x/"], "{stem}.{ext}"))
        XCTAssertEqual(partial.0, "{name}.{ext}")
        XCTAssertTrue(partial.1, "cl/x/p.png and cl2/x/p.png clash whatever the template")
        // A hint for the whole batch names no other file as the manifest, and makes no file another's folder (`p`
        // and `p/x`): following either, the run met the next refusal.
        try touch("m/p/x.png", "m/r/x.png", "m/.yuvconv-manifest.png", "m/p.png")
        let other = try XCTUnwrap(clash(["m/p", "m/r", "m/.yuvconv-manifest.png"], "{stem}"))
        // Not '{dir}/{name}': its `.png` would make the extensionless template's raw outputs PNGs.
        XCTAssertEqual(other.0, "{dir}/{name}.{ext}")
        XCTAssertFalse(other.1)
        let folder = try XCTUnwrap(clash(["m/p", "m/r", "m/p.png"], "{stem}"))
        XCTAssertEqual(folder.0, "{dir}/{name}.{ext}")
        for (operands, hint) in [(["m/p", "m/r", "m/.yuvconv-manifest.png"], other.0!), (["m/p", "m/r", "m/p.png"], folder.0!)] {
            XCTAssertNoThrow(try BatchPlan(operands: operands.map { root + "/" + $0 }, outputFolder: root + "/out/", template: hint))
        }
        let whole = try XCTUnwrap(clash(["cl/x/"], "{stem}.{ext}"))
        XCTAssertEqual(whole.0, "{name}.{ext}")
        XCTAssertFalse(whole.1)
    }

    /// A hint names no input of the batch as an output: into the inputs' own folder, `--name a.png` for `a.png`
    /// and `prog.jpg` was told '{stem}.png', which names `a.png` itself, and the run following it was refused as
    /// overwriting an input (an acceptance round).
    func testNameClashHintNamesNoInput() throws {
        try touch("pw/a.png", "pw/prog.jpg")
        let operands = [root + "/pw/a.png", root + "/pw/prog.jpg"]
        let error = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: operands, outputFolder: root + "/pw/", template: "a.png")
        }
        guard case .sameOutput(_, _, _, let hint?, let partial)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(hint, "{name}.png")
        XCTAssertFalse(partial)
        XCTAssertNoThrow(try BatchPlan(operands: operands, outputFolder: root + "/pw/", template: hint))
        // The same pair in a batch no template tells apart whole (x/a.png and y/a.png, given one by one): the hint
        // for the pair names neither of them as an input either (it was '{stem}.png', the first that told them apart).
        try touch("x/a.png", "y/a.png")
        let wider = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: operands + [root + "/x/a.png", root + "/y/a.png"], outputFolder: root + "/pw/",
                          template: "a.png")
        }
        guard case .sameOutput(_, _, _, let pairHint?, let isPartial)? = wider else { return XCTFail("\(String(describing: wider))") }
        XCTAssertEqual(pairHint, "{name}.png")
        XCTAssertTrue(isPartial)
    }

    /// Every shard refuses what the whole batch refuses: checked shard by shard, b.jpg and b.png fell into
    /// different shards, each shard wrote its b.nv12, and the second replaced (or skipped) the first's.
    func testShardsAreCheckedAsTheWholeBatch() throws {
        try touch("d/a.jpg", "d/b.jpg", "d/b.png")
        for k in 1...2 {
            let error = refusal { () throws(BatchPlanError) in
                try BatchPlan(operands: [root + "/d/"], outputFolder: root + "/o/", shard: (k, 2))
            }
            guard case .sameOutput(let first, let second, _, _, _)? = error else { return XCTFail("shard \(k): \(String(describing: error))") }
            XCTAssertEqual([first, second], [root + "/d/b.jpg", root + "/d/b.png"], "shard \(k)")
        }
        // An output that is another shard's input: protected in every shard.
        try touch("e/a.png", "e/b.png")
        try FileManager.default.createDirectory(atPath: root + "/eo", withIntermediateDirectories: true)
        try FileManager.default.linkItem(atPath: root + "/e/b.png", toPath: root + "/eo/a.nv12")
        for k in 1...2 {
            let error = refusal { () throws(BatchPlanError) in
                try BatchPlan(operands: [root + "/e/"], outputFolder: root + "/eo/", shard: (k, 2))
            }
            guard case .outputIsInputByAnotherName(root + "/eo/a.nv12", root + "/e/b.png")? = error else {
                return XCTFail("shard \(k): \(String(describing: error))")
            }
        }
    }

    /// A template's braces are placeholders or refused: unknown ones, and unmatched braces (`x{stem` and
    /// `{stem}}` once named files `x{stem` and `a}`).
    func testTemplateBracesArePlaceholders() throws {
        try touch("a.png")
        for (template, token) in [("{nmae}.nv12", "{nmae}"), ("x{stem", "{stem"), ("{stem}}", "}"), ("{stem}.{ext}}x", "}x"),
                                  ("}{stem}", "}{stem}")] {
            let error = refusal { () throws(BatchPlanError) in
                try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", template: template)
            }
            guard case .unknownPlaceholder(template, let found)? = error else { return XCTFail("\(template): \(String(describing: error))") }
            XCTAssertEqual(found, token, template)
        }
        XCTAssertEqual(outputs(try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", template: "{dir}/{stem}-{format}.{ext}")),
                       ["out/a-nv12.nv12"])
        // Braces by scalar: a mark joining a brace into one Character leaves it a brace (both were refused).
        XCTAssertEqual(outputs(try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", template: "\u{6DD}{stem}.{ext}")),
                       ["out/\u{6DD}a.nv12"])
        XCTAssertEqual(outputs(try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", template: "{stem}\u{301}.{ext}")),
                       ["out/a\u{301}.nv12"])
        let error = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", template: "x\u{6DD}}{stem}")
        }
        guard case .unknownPlaceholder(_, let found)? = error else { return XCTFail(String(describing: error)) }
        XCTAssertTrue(found.sameScalars("}{stem}"), found)
    }

    func testNamesThatLeaveTheFolderRefused() throws {
        try touch("a.png")
        for template in ["../{stem}.nv12", "sub/../../{stem}", "{stem}/", "{dir}", ""] {
            let error = refusal { () throws(BatchPlanError) in
                try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", template: template)
            }
            switch error {
            case .nameOutsideFolder(let t, _, let input)?:
                XCTAssertEqual(t, template)
                XCTAssertEqual(input, root + "/a.png")
            case .emptyTemplate?: XCTAssertEqual(template, "")
            default: XCTFail("\(template): \(String(describing: error))")
            }
            XCTAssertEqual(error?.isUsage, true)
        }
        // ".." inside a name is no folder.
        let plan = try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", template: "{stem}..{ext}")
        XCTAssertEqual(outputs(plan), ["out/a..nv12"])
    }

    func testFormatsFromNames() throws {
        try touch("a.png")
        func format(_ template: String, asked: OutputFormat? = nil) throws -> OutputFormat {
            try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", template: template, format: asked)
                .items[0].format
        }
        XCTAssertEqual(try format("{stem}.{ext}"), .raw(.nv12))
        XCTAssertEqual(try format("{stem}.y4m"), .y4m)
        XCTAssertEqual(try format("{stem}.yuv"), .raw(.yuv420p))
        XCTAssertEqual(try format("{stem}.out.png"), .png)
        XCTAssertEqual(try format("{stem}.JPG"), .jpeg)
        XCTAssertEqual(try format("{stem}"), .raw(.nv12))
        // What was asked wins over the name, and names {ext}.
        XCTAssertEqual(try format("{stem}.{ext}", asked: .y4m), .y4m)
        XCTAssertEqual(try format("{stem}.png", asked: .raw(.yv12)), .raw(.yv12))
        // An unknown extension is refused, never silently NV12.
        let unknown = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", template: "{stem}.bmp")
        }
        guard case .format(.unresolved(let u))? = unknown else { return XCTFail("\(String(describing: unknown))") }
        XCTAssertEqual(u.fileExtension, "bmp")
        // What only raw planes carry refuses a container, the first need named.
        let padded = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", template: "{stem}.y4m",
                          needs: [.alphaPlane, .rowPadding])
        }
        guard case .format(.rawOnly(.alphaPlane, .y4m))? = padded else { return XCTFail("\(String(describing: padded))") }
        XCTAssertEqual(try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/", needs: [.rowPadding])
            .items[0].format, .raw(.nv12))
    }

    func testFIFOsAndDevicesSkipped() throws {
        try touch("in/a.png")
        XCTAssertEqual(mkfifo(root + "/in/pipe.png", 0o600), 0)
        XCTAssertEqual(mkfifo(root + "/in/pipe.txt", 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: root + "/in/null.jpg", withDestinationPath: "/dev/null")
        let plan = try BatchPlan(operands: [root + "/in/"], outputFolder: root + "/out/")
        XCTAssertEqual(plan.items.map(\.input), [root + "/in/a.png"])
        XCTAssertEqual(plan.skipped.map(\.kind), [.characterDevice, .fifo])
        XCTAssertEqual(plan.skipped.map(\.description), [root + "/in/null.jpg (a device)", root + "/in/pipe.png (a FIFO)"])
    }

    func testOutputThatIsAnInputRefused() throws {
        try touch("a.png", "a.nv12", "list.txt")
        // a.nv12 is a hard link to the input a.png: writing it would destroy the input.
        try FileManager.default.removeItem(atPath: root + "/a.nv12")
        try FileManager.default.linkItem(atPath: root + "/a.png", toPath: root + "/a.nv12")
        let error = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/")
        }
        // Said as what it is: the input under another name, named (the advice to give the outputs a folder of their
        // own, meant for outputs read back as inputs, did not fit a link).
        guard case .outputIsInputByAnotherName(let path, let input)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual([path, input], [root + "/a.nv12", root + "/a.png"])
        XCTAssertEqual(error?.isUsage, false)
        XCTAssertEqual(error?.fileError?.reason, "is an input of this batch, \(root)/a.png, under another name (a link to it, or a "
                       + "path through ..); refusing to overwrite an input")
        // An input by its own name (an output folder that is also the inputs' folder): the advice fits there.
        let same = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/", format: .png)
        }
        guard case .outputIsInput(root + "/a.png")? = same else { return XCTFail("\(String(describing: same))") }
        // However the paths are spelled (a reviewer's `./in/`, `in//` and absolute folders were said to be other names),
        // and before a link to it that sorts first (a.nv12, linked to a.png, is an input too here).
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        try touch("in/z.png")
        try FileManager.default.linkItem(atPath: root + "/in/z.png", toPath: root + "/in/a.jpg")
        for (operand, folder) in [(root + "/in/", root + "/in//"), (root + "/./in/", root + "/in/"), (root + "/in", root + "/in/../in/")] {
            let spelled = refusal { () throws(BatchPlanError) in
                try BatchPlan(operands: [operand], outputFolder: folder, format: .png)
            }
            guard case .outputIsInput? = spelled else { return XCTFail("\(operand) → \(folder): \(String(describing: spelled))") }
        }
        XCTAssertTrue(same?.fileError?.reason.hasPrefix("is an input of this batch; refusing to overwrite an input (where the output "
                                                         + "folder is also an input folder") == true)
        // The list of files is an input too.
        try "\(root)/b.png\n".write(toFile: root + "/list.txt", atomically: false, encoding: .utf8)
        try touch("b.png")
        let list = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [], outputFolder: root + "/", template: "list.txt", format: .y4m, filesFrom: root + "/list.txt")
        }
        guard case .outputIsList(root + "/list.txt")? = list else { return XCTFail("\(String(describing: list))") }
        XCTAssertEqual(list?.fileError?.reason, "is the list this batch's inputs were read from; refusing to overwrite it")
        // So is the report file, when it is an image output.
        let report = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [root + "/b.png"], outputFolder: root + "/out/", reportFile: root + "/out/b.nv12")
        }
        guard case .reportIsOutput? = report else { return XCTFail("\(String(describing: report))") }
    }

    func testFilesFromLinesAndNUL() throws {
        try touch("a.png", "b c.png")
        try "\(root)/b c.png\r\n\n\(root)/a.png\n".write(toFile: root + "/lines", atomically: false, encoding: .utf8)
        try "\(root)/a.png\0\(root)/b c.png\0".write(toFile: root + "/nul", atomically: false, encoding: .utf8)
        for (list, nul) in [("lines", false), ("nul", true)] {
            let plan = try BatchPlan(operands: [], outputFolder: root + "/out/", filesFrom: root + "/" + list, nul: nul)
            XCTAssertEqual(outputs(plan), ["out/a.nv12", "out/b c.nv12"], list)
        }
        let missing = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [], outputFolder: root + "/out/", filesFrom: root + "/none")
        }
        guard case .file(let e)? = missing else { return XCTFail("\(String(describing: missing))") }
        XCTAssertEqual(e.path, root + "/none")
        XCTAssertTrue(e.reason.hasPrefix("cannot open the list: "), e.reason)
        // A NUL-separated list read as lines is refused, not read as its first path (no path holds a NUL).
        let mixed = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [], outputFolder: root + "/out/", filesFrom: root + "/nul")
        }
        guard case .file(let m)? = mixed else { return XCTFail("\(String(describing: mixed))") }
        XCTAssertEqual(m.path, root + "/nul")
        XCTAssertEqual(m.reason, "line 1 holds a NUL byte: a NUL-separated list needs -0")
        // A line longer than any path is refused as it is read, not gathered (a 60 MB one cost 525 MiB).
        try ("\(root)/b.png\n" + String(repeating: "a", count: 5000) + "\n").write(toFile: root + "/long", atomically: false,
                                                                                  encoding: .utf8)
        let long = refusal { () throws(BatchPlanError) in
            try BatchPlan(operands: [], outputFolder: root + "/out/", filesFrom: root + "/long")
        }
        guard case .file(let l)? = long else { return XCTFail("\(String(describing: long))") }
        XCTAssertEqual(l.reason, "line 2 is longer than 4096 bytes, longer than any path")
    }

    func testOutputFolderAndStandardInputRefused() throws {
        try touch("a.png")
        XCTAssertThrowsError(try BatchOutputFolder(nil))
        XCTAssertThrowsError(try BatchOutputFolder("-"))
        guard case .outputNotFolder(let path)? = refusal({ () throws(BatchPlanError) in
            try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/a.png")
        }) else { return XCTFail() }
        XCTAssertEqual(path, root + "/a.png")
        // An existing folder without "/" is a folder; "new/" asks for one.
        XCTAssertEqual(try BatchOutputFolder(root).path, root)
        XCTAssertEqual(try BatchOutputFolder(root + "/new/").path, root + "/new/")
        // The root is the root: `-o /` once wrote `name` into the current folder.
        XCTAssertEqual(try BatchOutputFolder("/").path(of: "a.nv12"), "/a.nv12")
        XCTAssertEqual(try BatchOutputFolder(root).path(of: "a.nv12"), root + "/a.nv12")
        XCTAssertEqual(try BatchOutputFolder(root + "/").path(of: "a.nv12"), root + "/a.nv12")
        guard case .standardInput? = refusal({ () throws(BatchPlanError) in
            try BatchPlan(operands: [root + "/a.png", "-"], outputFolder: root + "/out/")
        }) else { return XCTFail() }
        // Alone, to a folder, it is not "one of many": it has no name to make the output's from.
        guard case .standardInputToFolder? = refusal({ () throws(BatchPlanError) in
            try BatchPlan(operands: ["-"], outputFolder: root + "/out/")
        }) else { return XCTFail() }
    }

    /// `report` keeps the order given but takes the shares `convert` takes: the shards of the sorted list.
    func testSelectionInGatheredOrder() throws {
        try touch("d.png", "b.png", "in/c.png", "in/a.png")
        let inputs = try BatchInputs(operands: [root + "/d.png", root + "/in/", root + "/b.png"])
        XCTAssertEqual(try inputs.selection(shard: nil, keepOrder: true).items.map(\.input),
                       ["d.png", "in/a.png", "in/c.png", "b.png"].map { root + "/" + $0 })
        XCTAssertEqual(try inputs.selection(shard: nil).items.map(\.input), ["b.png", "d.png", "in/a.png", "in/c.png"].map { root + "/" + $0 })
        for k in 1...3 {
            let planned = try BatchPlan(inputs, outputFolder: BatchOutputFolder(root + "/out/"), shard: (k, 3)).items.map(\.input)
            XCTAssertEqual(Set(try inputs.selection(shard: (k, 3), keepOrder: true).items.map(\.input)), Set(planned), "shard \(k)/3")
        }
        XCTAssertEqual(try inputs.selection(shard: (1, 3), keepOrder: true).items.map(\.input), ["in/c.png", "b.png"].map { root + "/" + $0 })
    }

    /// Standard input may be one input where the caller allows it (report), once, and not beside `--files-from -`.
    func testStandardInputOnceWhereAllowed() throws {
        try touch("a.png")
        XCTAssertEqual(try BatchInputs(operands: ["-", root + "/a.png"], standardInput: true).items.map(\.input), ["-", root + "/a.png"])
        for (operands, list) in [(["-", "-"], nil), (["-"], "-")] as [([String], String?)] {
            do {
                _ = try BatchInputs(operands: operands, filesFrom: list, standardInput: true)
                XCTFail("\(operands) \(String(describing: list)) accepted")
            } catch {
                guard case .standardInputTwice = error else { return XCTFail("\(error)") }
                XCTAssertTrue(error.isUsage)
            }
        }
    }

    /// A listed "-" is a file of that name, never standard input (it read standard input as one of many inputs).
    func testListedDashIsAFile() throws {
        try touch("a.png")
        let list = root + "/list.txt"
        try Data("\(root)/a.png\n-\n".utf8).write(to: URL(fileURLWithPath: list))
        XCTAssertEqual(try BatchInputs(operands: [], filesFrom: list).items.map(\.input), [root + "/a.png", "./-"])
    }

    /// Without --update: nothing there converts, an existing output is replaced with --force, else skipped.
    func testActionWithoutUpdate() throws {
        try touch("a.png")
        let item = try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/").items[0]
        XCTAssertEqual(item.name, "a.nv12")
        XCTAssertEqual(BatchAction(item, force: true), .convert)
        XCTAssertFalse(BatchAction(item, force: true).replaces)
        try touch("out/a.nv12")
        // Planned with the output there: replaced with --force, else skipped as already there.
        let again = try BatchPlan(operands: [root + "/a.png"], outputFolder: root + "/out/").items[0]
        XCTAssertEqual(BatchAction(again, force: true), .replace(nil))
        XCTAssertTrue(BatchAction(again, force: true).replaces)
        XCTAssertEqual(BatchAction(again, force: false), .skip(upToDate: false))
        // Planned before it came (another output of the run, where case is not told apart): not "already there",
        // nor replaced — converted, so that writing refuses it (AtomicOutput.Before).
        XCTAssertEqual(item.foundAtPlan, .nothing)
        XCTAssertEqual(BatchAction(item, force: true), .convert)
        XCTAssertEqual(BatchAction(item, force: false), .convert)
        XCTAssertThrowsError(try AtomicOutput(path: root + "/out/a.nv12", force: true, before: item.foundAtPlan)) {
            XCTAssertTrue("\($0)".contains("appeared at this name during the run"), "\($0)")
        }
        // Replaced by another file since the plan looked (made while the first was there: another inode, and
        // another time): kept too.
        try touch("out/other")
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, root + "/out/other", &times, 0), 0)
        XCTAssertEqual(rename(root + "/out/other", root + "/out/a.nv12"), 0)
        XCTAssertEqual(BatchAction(again, force: true), .convert)
        // The same size and time under another inode number is the same file (a FUSE file system without inode
        // numbers of its own renumbers a file the kernel forgot: a rerun failed every such output as replaced).
        let now = try XCTUnwrap(FileStatus(path: root + "/out/a.nv12"))
        let born = birthTime(root + "/out/a.nv12")
        let renumbered = FileVersion(identity: FileIdentity(device: 0, inode: 0), size: now.size, modified: now.modified,
                                     born: born)
        XCTAssertTrue(AtomicOutput.Before.file(renumbered).allows(now, born: born))
        XCTAssertFalse(AtomicOutput.Before.file(FileVersion(identity: FileIdentity(device: 0, inode: 0), size: now.size,
                                                            modified: now.modified + 1, born: born)).allows(now, born: born))
        // The same inode number, size and time, but made since (its birth time): a file removed and another made at
        // its name, which got the freed number again at once, is not the one the plan saw.
        if let born {
            XCTAssertFalse(AtomicOutput.Before.file(FileVersion(now, born: born - 1)).allows(now, born: born))
        }
        // Without birth times (ext4 with 128-byte inodes, ext2/3, network mounts): the same inode number with other
        // contents is a newcomer under the freed number, and the same size and time is the same file.
        let unborn = FileVersion(identity: now.identity, size: now.size + 1, modified: now.modified)
        XCTAssertFalse(AtomicOutput.Before.file(unborn).allows(now, born: nil))
        XCTAssertTrue(AtomicOutput.Before.file(FileVersion(now, born: nil)).allows(now, born: nil))
        // A touch, a chmod, a hard link made to it: still the file the plan saw (its birth time stays).
        let seen = FileVersion(now, born: born)
        XCTAssertEqual(chmod(root + "/out/a.nv12", 0o600), 0)
        XCTAssertEqual(link(root + "/out/a.nv12", root + "/out/a-link.nv12"), 0)
        let touched = try XCTUnwrap(FileStatus(path: root + "/out/a.nv12"))
        XCTAssertTrue(AtomicOutput.Before.file(seen).allows(touched, born: birthTime(root + "/out/a.nv12")))
        // Whatever appeared is kept, not only a plain file: a link to a device put at an output's name.
        XCTAssertEqual(symlink("/dev/null", root + "/out/dev.nv12"), 0)
        XCTAssertThrowsError(try AtomicOutput(path: root + "/out/dev.nv12", force: true, before: .nothing)) {
            XCTAssertTrue("\($0)".contains("appeared at this name during the run (another program"), "\($0)")
            XCTAssertTrue("\($0)".contains("--force replaces only what was there"), "\($0)")
        }
    }
}
