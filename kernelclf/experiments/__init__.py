"""The sources' experimental protocols, one module per paper, on a resumable runner
(book chapters 12-13), and their command line ``python -m kernelclf.experiments``.

Book chapters 12 and 13 (``book/12_bpm_experiments.md``, ``book/13_relative_margin_machines.md``).

* :mod:`~kernelclf.experiments.runner` - tasks, results files, resume, the command registry
* :mod:`~kernelclf.experiments.bpm` - the Bayes point machine paper's protocols (BPM §4)
* :mod:`~kernelclf.experiments.lkc` - LKC's normalisation experiment (Example 5.11, Fig. 5.1)
* :mod:`~kernelclf.experiments.intro` - the small demos of chapters 01 and 03 (LKC Figs 1.2
  and 1.4, BPM Fig. 1)
* :mod:`~kernelclf.experiments.rm` - Ruján and Marchand's teacher-student learning curves
  (RM §18.6, Figs 18.11-18.12)
* :mod:`~kernelclf.experiments.rmm` - the relative margin machine paper: synthetic data and digits
  (RMM §5.1-5.3)
* :mod:`~kernelclf.experiments.rmm_synthetic` - the synthetic Gaussians (§5.1, Figs 3-6) on the
  paper's protocol, run offline
* :mod:`~kernelclf.experiments.rmm_benchmarks` - the paper's Table 4 on the Rätsch benchmarks (§5.6)
* :mod:`~kernelclf.experiments.rmm_text` - the paper's text experiment on Reuters-21578 (§5.5)
* :mod:`~kernelclf.experiments.rmm_universum` - the paper's Table 3 with a Universum SVM (§5.4.1)
* :mod:`~kernelclf.experiments.rmm_results` - the RMM tables rendered from their results files
* :mod:`~kernelclf.experiments.results` - committed results files rendered as tables
* :mod:`~kernelclf.experiments.cli` - the command line
"""
from . import results
from .bpm import (
    TABLE1_NAMES,
    TABLE1_REPORTED,
    TABLE1_SIGMA,
    bpm_table1,
    fig9_usps_scores,
    fig9_usps_tasks,
    fig10_counts,
    fig10_tasks,
    format_table1,
    heart_pool_indices,
    one_vs_rest_bpm,
    perceptron_usage,
    soft_boundary_curve,
    table1_from_file,
    table1_rows,
    table1_splits,
    table1_tasks,
)
from .cli import build_parser, main
from .intro import (
    CLUSTER_MEANS,
    CLUSTER_SD,
    MIXTURE_VARIANCE,
    MNIST_FIRST_LABELS,
    MNIST_FIRST_SHA256,
    fit_mixture,
    fixed_width_mixture_density,
    margin_geometry,
    mixture_density,
    mnist_first_images,
    nearest_centre,
    preference_classes,
    three_clusters,
)
from .rm import (
    RM_ALPHAS,
    RM_D,
    RM_RUNS,
    generalisation_probability,
    teacher_student_curves,
    teacher_student_run,
    teacher_student_tasks,
)
from .rmm import (
    FIG1_REPORTED,
    MU_NEG,
    MU_POS,
    SIGMA,
    TABLE2_REPORTED,
    TABLE2_TEST_SIZES,
    bayes_rule,
    digits_binary_curve,
    digits_table2,
    gaussians,
    mnist_pair,
    parallel_lines,
    relative_margin,
    stretch_study,
    synthetic_B_curve,
    synthetic_errors,
    unit_poly,
)
from .rmm_benchmarks import (
    TABLE4_METHODS,
    TABLE4_REPORTED,
    TABLE4_SIZES,
    format_table4,
    table4,
    table4_params,
    table4_rows,
    table4_split,
    table4_splits,
)
from .rmm_text import (
    TEXT_TOPICS,
    format_text,
    reuters_documents,
    text_pair_repeat,
    text_rows,
    training_span,
    word_frequencies,
)
from .rmm_universum import TABLE3_REPORTED, universum_repeat, universum_rows
from .runner import (
    COMMANDS,
    Experiment,
    ResultsFileError,
    RunResult,
    SplitsFailedError,
    Task,
    register,
    run_tasks,
)

__all__ = [
    "Task", "RunResult", "ResultsFileError", "SplitsFailedError", "run_tasks", "Experiment",
    "register", "COMMANDS", "TABLE1_SIGMA", "TABLE1_REPORTED", "heart_pool_indices", "table1_splits",
    "table1_tasks",
    "table1_rows", "bpm_table1", "format_table1", "soft_boundary_curve", "one_vs_rest_bpm",
    "table1_from_file", "TABLE1_NAMES", "perceptron_usage", "fig10_tasks", "fig10_counts",
    "fig9_usps_tasks", "fig9_usps_scores",
    "results", "MU_POS", "MU_NEG", "SIGMA", "gaussians", "bayes_rule", "synthetic_errors",
    "digits_binary_curve", "TABLE2_REPORTED", "TABLE2_TEST_SIZES", "digits_table2", "unit_poly",
    "TABLE4_SIZES", "TABLE4_REPORTED", "TABLE4_METHODS", "table4_splits", "table4_params",
    "table4_split", "table4_rows", "table4", "format_table4", "TEXT_TOPICS", "reuters_documents",
    "word_frequencies", "training_span", "text_pair_repeat", "text_rows", "format_text",
    "FIG1_REPORTED", "parallel_lines", "stretch_study", "synthetic_B_curve", "mnist_pair",
    "TABLE3_REPORTED", "universum_repeat", "universum_rows",
    "build_parser", "main", "relative_margin", "CLUSTER_MEANS", "CLUSTER_SD", "MIXTURE_VARIANCE",
    "MNIST_FIRST_LABELS", "MNIST_FIRST_SHA256", "nearest_centre", "fixed_width_mixture_density",
    "mnist_first_images", "three_clusters", "fit_mixture",
    "mixture_density", "preference_classes", "margin_geometry", "RM_D", "RM_RUNS", "RM_ALPHAS",
    "generalisation_probability", "teacher_student_run", "teacher_student_tasks",
    "teacher_student_curves",
]
