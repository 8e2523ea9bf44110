#pragma once
// Private to urdf/: the stages of parse_urdf (urdf_import.hpp), one per file.
// urdf_precheck.cpp bounds the document before urdfdom sees it; urdf_parse.cpp runs
// urdfdom and wraps its errors; urdf_tree.cpp checks the tree and merges fixed joints;
// urdf_inertia.cpp holds the mass-property arithmetic; urdf_mimic.cpp resolves <mimic>;
// urdf_warnings.cpp lists what is read and not used; urdf_base.cpp floats or fixes the base.
#include <string>
#include <vector>

#include "simphant/math/small.hpp"
#include "simphant/reduced/reduced_model.hpp"

namespace urdf {
class ModelInterface;
}

namespace simphant::urdf_detail {

/// Mass properties of a rigid body in some frame F: mass [kg], CoM in F [m], inertia
/// about the CoM along F's axes [kg m^2].
struct MassProps {
  double mass = 0;
  Vec3d com{};
  Mat3d inertia{};
};

/// R I R^T: an inertia tensor given along the axes of frame F, expressed along G's axes
/// (R = R_GF). The result is exactly symmetric.
Mat3d rotate_inertia(const Mat3d& R_GF, const Mat3d& I_F);

/// The same body expressed in frame G, given F's pose in G: x_G = R_GF x_F + p_GF.
/// com' = R com + p, inertia' = R inertia R^T.
MassProps transform_mass(const MassProps& m, const Mat3d& R_GF, const Vec3d& p_GF);

/// Two bodies in one frame welded together (parallel-axis theorem):
/// M = m_a + m_b, c = (m_a c_a + m_b c_b) / M,
/// I = sum_k I_k + m_k (|d_k|^2 E - d_k d_k^T), d_k = c_k - c. Precondition: M > 0.
MassProps combine_mass(const MassProps& a, const MassProps& b);

/// Checks a symmetric inertia: positive definite (smallest eigenvalue > 0) and the
/// triangle inequality of principal moments I1 + I2 >= I3 (relative tolerance 1e-9).
/// Throws UrdfError("<where>: inertia is not positive definite (principal moments ...)")
/// or "...: inertia violates the triangle inequality ...".
void check_inertia(const Mat3d& inertia, const std::string& where);

/// `xml_text` followed by 4 NUL bytes, the form every TinyXML parse of the importer
/// (urdfdom's included) reads. TinyXML 2.6.2 steps over a UTF-8 lead byte by the
/// sequence length it announces (up to 4 bytes), so a text ending inside such a sequence
/// made it read past the end of the buffer (found by fuzz_urdf under AddressSanitizer);
/// the padding keeps every such step inside the buffer, at a NUL that ends the parse.
std::string tinyxml_text(const std::string& xml_text);

/// Refuses, with UrdfError(prefix + ": ..."), what urdfdom must not see: a NUL byte or a
/// character reference to NUL (&#0;),
/// element nesting deeper than kMaxXmlDepth, more than kMaxUrdfLinks links or
/// kMaxUrdfJoints joints, a link that is the child of two joints, and a cycle of joints
/// (named: "joint 'j': a kinematic loop through links a -> b -> a"). Documents that
/// TinyXML cannot parse, or with duplicate names, pass: urdfdom reports those.
/// `padded` is tinyxml_text(xml_text).
void precheck_urdf(const std::string& xml_text, const std::string& padded, const std::string& prefix);

/// Fills ReducedLink::mimic, mimic_multiplier and mimic_offset from the <mimic> elements
/// of the moving joints (urdf_mimic.cpp). A chain (a mimics b, b mimics c) is resolved to
/// the leader c, composing q_a = m_a (m_b q_c + o_b) + o_a. Throws UrdfError naming the
/// joint for a mimic of itself, of an unknown joint, of a fixed or floating joint (no
/// coordinate), a non-finite multiplier or offset, and a cycle of mimics.
void resolve_mimics(const urdf::ModelInterface& model, ReducedModel& rm, const std::string& prefix);

/// One line per element or attribute of the URDF document that the import reads past and
/// no solver uses (urdf_warnings.cpp), in document order, equal findings merged into one
/// line that names every joint or link. `padded` is tinyxml_text(xml_text) of a document
/// urdfdom accepted.
std::vector<std::string> unused_urdf_elements(const std::string& padded);

/// The checked ReducedModel of a urdfdom model (urdf_tree.cpp), mimics resolved. `prefix` ("URDF <source>")
/// starts every error message.
ReducedModel build_reduced_model(const urdf::ModelInterface& model, const std::string& prefix);

}  // namespace simphant::urdf_detail
