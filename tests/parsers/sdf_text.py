"""Small SDFormat documents, one per feature, shared by the SDFormat tests (pydrake parity in
tests/reference/test_sdf_drake.py, robustness in test_sdf_mjcf_fuzz.py)."""

LINK = '<link name="{}"><pose>{}</pose><inertial><pose>0.01 0.02 0.03 0.1 0.2 0.3</pose>' \
       '<mass>1.5</mass><inertia><ixx>0.1</ixx><iyy>0.2</iyy><izz>0.25</izz><ixy>0.01</ixy>' \
       '<ixz>0.02</ixz><iyz>0.03</iyz></inertia></inertial></link>'


def link(name, pose="0 0 0 0 0 0"):
    return LINK.format(name, pose)


def model(body, name="m", version="1.10", pose=""):
    return f'<?xml version="1.0"?>\n<sdf version="{version}"><model name="{name}">{pose}{body}' \
           "</model></sdf>"


def joint(kind, parent="a", child="b", extra="", name="j"):
    return (f'<joint name="{name}" type="{kind}"><parent>{parent}</parent><child>{child}</child>'
            f"{extra}</joint>")


AB = link("a", "0.1 0.2 0.3 0.1 -0.2 0.3") + link("b", "0.5 -0.2 1 0.4 0.5 -0.6")
AXIS = ("<axis><xyz>0 1 1</xyz><limit><lower>-1</lower><upper>2</upper><effort>5</effort>"
        "<velocity>3</velocity><drake:acceleration>4</drake:acceleration></limit><dynamics>"
        "<damping>0.2</damping><friction>0.1</friction><spring_reference>0.3</spring_reference>"
        "<spring_stiffness>7</spring_stiffness></dynamics></axis>")
CASES = {
    "default-inertia-and-poses": model(link("a") + '<link name="b"><pose>1 2 3 0.3 0.2 0.1'
                                       '</pose></link><link name="c"><inertial><mass>3</mass>'
                                       "</inertial></link>", pose="<pose>1 0 0 0 0 1</pose>"),
    "revolute": model(AB + joint("revolute", extra=AXIS + '<pose>0.1 0 0 0 0 0.2</pose>'
                                 "<drake:rotor_inertia>0.3</drake:rotor_inertia>"
                                 "<drake:gear_ratio>4</drake:gear_ratio>")),
    "continuous": model(AB + joint("continuous", extra=AXIS)),
    "prismatic": model(AB + joint("prismatic", extra=AXIS)),
    "unactuated": model(AB + joint("revolute", extra="<axis><limit><effort>0</effort></limit>"
                                                     "</axis>")),
    "screw": model(AB + joint("screw", extra="<axis><xyz>1 0 0</xyz><dynamics><damping>0.3"
                                             "</damping></dynamics></axis>"
                                             "<screw_thread_pitch>0.02</screw_thread_pitch>")),
    "screw-thread-pitch-1.9": model(AB + joint("screw", extra="<axis><xyz>1 0 0</xyz></axis>"
                                                              "<thread_pitch>4</thread_pitch>"),
                                    version="1.9"),
    "ball": model(AB + joint("ball", extra="<axis><dynamics><damping>0.3</damping></dynamics>"
                                           "<limit><effort>0</effort></limit></axis>")),
    "universal": model(AB + joint("universal", extra="<axis><xyz>0 0 1</xyz><dynamics><damping>"
                                                     "0.2</damping></dynamics></axis><axis2>"
                                                     "<xyz>1 0 0</xyz></axis2>")),
    "fixed-and-world": model(AB + joint("fixed") + joint("revolute", "world", "a",
                                                         "<axis><xyz>1 0 0</xyz></axis>", "w"),
                             pose="<pose>0 0 1 0 0 0.5</pose>"),
    "axis-expressed-in": model(AB + '<frame name="f" attached_to="a"><pose>0 0 0 0.3 0 0'
                               "</pose></frame>" + joint("revolute", extra='<axis><xyz '
                               'expressed_in="__model__">1 0 0</xyz></axis>') + joint(
                               "prismatic", "b", "c", '<axis><xyz expressed_in="f">0 1 0</xyz>'
                               "</axis>", "k") + link("c", "0 0 2 0 0 0")),
    "use-parent-model-frame-1.6": model(AB + joint("revolute", extra="<axis><xyz>1 0 0</xyz>"
                                                   "<use_parent_model_frame>true"
                                                   "</use_parent_model_frame></axis>"),
                                        version="1.6"),
    "frames": model(AB + joint("revolute", extra="<axis/><pose>0 0 1 0 0 0</pose>")
                    + '<frame name="f1" attached_to="a"><pose relative_to="b">1 0 0 0 0 1</pose>'
                      '</frame><frame name="f2"><pose relative_to="f1">0 1 0 0.2 0 0</pose>'
                      '</frame><frame name="f3" attached_to="f2"/><frame name="f4" attached_to'
                      '="j"><pose>0 0 0.5 0 0 0</pose></frame><frame name="f5" attached_to="__'
                      'model__"><pose degrees="true">0 0 0 90 0 45</pose></frame><frame name='
                      '"f6"><pose rotation_format="quat_xyzw">1 2 3 0 0 0.7071068 0.7071068'
                      "</pose></frame>"),
    "canonical-link": '<sdf version="1.9"><model name="m" canonical_link="b"><pose>1 2 3 0 0 1'
                      "</pose>" + AB + "</model></sdf>",
    "nested": model(link("a", "1 0 0 0 0 0") + '<model name="inner"><pose relative_to="a">0 0 1'
                    ' 0 0 0.5</pose>' + link("x", "0 1 0 0 0 0") + link("y") + joint(
                    "revolute", "x", "y", "<axis><xyz>0 0 1</xyz></axis>") + '<model name='
                    '"deep">' + link("z") + '</model><frame name="fi"/></model>' + joint(
                    "ball", "a", "inner::x", name="k") + '<frame name="fm" attached_to="inner"/>'
                    '<frame name="fz" attached_to="inner::deep::z"><pose relative_to="a">1 1 1 '
                    "0 0 0</pose></frame>", name="outer"),
    "model-without-links": model('<model name="inner"><pose>0 0 1 0 0 0</pose>' + AB + "</model>"
                                 '<frame name="f" attached_to="inner::b"/>', name="outer",
                                 pose="<pose>1 0 0 0 0 0.3</pose>"),
    "joint-between-frames": model(AB + '<frame name="pf" attached_to="a"><pose>0 0 1 0 0.2 0'
                                  '</pose></frame><frame name="cf" attached_to="b"><pose>0 1 0 '
                                  "0.1 0 0</pose></frame>" + joint("revolute", "pf", "cf",
                                  "<axis><xyz>1 0 0</xyz></axis>")),
    "static": model(AB + link("c", "0 0 3 0 0 0") + joint("fixed"), pose="<static>true</static>"
                    "<pose>0 0 1 0 0 0</pose>"),
    "world": '<sdf version="1.9"><world name="w"><frame name="wf"><pose>0 0 1 0 0 0</pose>'
             '</frame><model name="p"><pose relative_to="wf">1 0 0 0 0 0</pose>' + link("a")
             + '</model><model name="q">' + link("a") + '</model><joint name="weld" type='
             '"fixed"><parent>world</parent><child>q::a</child></joint><frame name="wf2" '
             'attached_to="p::a"/></world></sdf>',
    "drake-planar-joint": model(AB + '<frame name="f" attached_to="a"/><drake:joint name="pj" '
                                'type="planar"><drake:parent>f</drake:parent><drake:child>b'
                                "</drake:child><drake:damping>0.1 0.2 0.3</drake:damping>"
                                "</drake:joint>"),
    "geometry": model('<link name="a"><collision name="box"><pose>1 2 3 0.1 0.2 0.3</pose>'
                      "<geometry><box><size>0.1 0.2 0.3</size></box></geometry><surface>"
                      "<friction><ode><mu>0.6</mu><mu2>0.5</mu2></ode></friction></surface>"
                      '</collision><collision name="cap"><geometry><capsule><radius>0.1</radius>'
                      "<length>0.3</length></capsule></geometry><drake:proximity_properties>"
                      "<drake:mu_static>0.8</drake:mu_static><drake:mu_dynamic>0.7"
                      "</drake:mu_dynamic><drake:point_contact_stiffness>1e5"
                      "</drake:point_contact_stiffness><drake:hunt_crossley_dissipation>2"
                      "</drake:hunt_crossley_dissipation><drake:relaxation_time>0.05"
                      "</drake:relaxation_time></drake:proximity_properties></collision>"
                      '<collision name="plane"><pose>0 0 1 0.3 0 0</pose><geometry><plane>'
                      "<normal>0.3 -0.2 0.9</normal></plane></geometry></collision><collision "
                      'name="ell"><geometry><ellipsoid><radii>0.1 0.2 0.3</radii></ellipsoid>'
                      '</geometry></collision><collision name="dc"><geometry><drake:capsule>'
                      "<radius>0.2</radius><length>0.4</length></drake:capsule></geometry>"
                      '</collision><visual name="cyl"><geometry><cylinder><radius>0.1</radius>'
                      "<length>0.2</length></cylinder></geometry><material><diffuse>0.1 0.2 0.3 "
                      '0.4</diffuse></material></visual><visual name="sph"><geometry><sphere>'
                      "<radius>0.3</radius></sphere></geometry></visual><visual name=\"de\">"
                      "<geometry><drake:ellipsoid><a>1</a><b>2</b><c>3</c></drake:ellipsoid>"
                      '</geometry></visual><visual name="none"><geometry><empty/></geometry>'
                      '</visual><visual name="rel"><pose relative_to="__model__">0 0 1 0 0 0'
                      "</pose><geometry><box/></geometry></visual></link>",
                      pose="<pose>0 0 0 0 0 0.4</pose>"),
}
